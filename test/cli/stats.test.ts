import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { sql } from 'kysely';
import { openTestPostgres } from '../helpers/database.js';
import { ACME, loadStandardFixture, removeTemporaryObjectStorages } from '../helpers/fixtures.js';
import { openDatabase, type DatabaseHandle } from '../../src/storage/database.js';
import { migrate } from '../../src/storage/migrate.js';
import { main } from '../../src/cli/main.js';

/** Runs the CLI in-process and returns what it printed. */
async function run(args: string[]): Promise<{ stdout: string; exitCode: number }> {
  const chunks: string[] = [];
  const write = process.stdout.write.bind(process.stdout);
  process.stdout.write = ((chunk: string | Uint8Array) => {
    chunks.push(String(chunk));
    return true;
  }) as typeof process.stdout.write;
  const before = process.exitCode;
  process.exitCode = 0;
  try {
    await main(['node', 'certdesk', ...args]);
    return { stdout: chunks.join(''), exitCode: Number(process.exitCode ?? 0) };
  } finally {
    process.stdout.write = write;
    process.exitCode = before;
  }
}

async function spoil(handle: DatabaseHandle): Promise<void> {
  // Drift of two kinds: a wrong count, and a counter row for orders that do not exist.
  await sql`UPDATE order_counters SET order_count = order_count + 5 WHERE scope_key = ${`project:${ACME.projects.zeta.id}`} AND order_state = 'Failed'`.execute(handle.db);
  await sql`INSERT INTO order_counters VALUES (${ACME.id}::uuid, 'personal:ghost@acme.test', NULL, 'ghost@acme.test', 'Reviewed', 3)`.execute(handle.db);
}

async function exercise(open: () => Promise<DatabaseHandle>, args: string[]): Promise<void> {
  let handle = await open();
  await loadStandardFixture(handle);
  await spoil(handle);
  await handle.close();

  const dry = await run([...args, 'stats', 'recount', '--dry-run', '--json']);
  assert.equal(dry.exitCode, 0);
  const report = JSON.parse(dry.stdout);
  assert.equal(report.dryRun, true);
  assert.equal(report.repaired, false);
  assert.deepEqual(
    report.drift.map((d: { scope_key: string; order_state: string; stored: number; actual: number }) => [d.scope_key, d.order_state, d.stored - d.actual]),
    [
      [`personal:ghost@acme.test`, 'Reviewed', 3],
      [`project:${ACME.projects.zeta.id}`, 'Failed', 5],
    ],
  );
  assert.equal(JSON.parse((await run([...args, 'stats', 'recount', '--dry-run', '--json'])).stdout).drift.length, 2, 'a dry run repairs nothing');

  const repair = await run([...args, 'stats', 'recount']);
  assert.equal(repair.exitCode, 0);
  assert.match(repair.stdout, /^2 counters drifted and were repaired\n/);
  const after = await run([...args, 'stats', 'recount', '--json']);
  assert.deepEqual(JSON.parse(after.stdout), { dryRun: false, drift: [], repaired: false });
  assert.equal((await run([...args, 'stats', 'recount'])).stdout, 'order counters are exact: no drift\n');

  handle = await open();
  try {
    const n = await sql<{ n: number }>`SELECT count(*)::int AS n FROM order_counters WHERE scope_key = 'personal:ghost@acme.test' AND order_count <> 0`.execute(handle.db);
    assert.equal(n.rows[0]!.n, 0);
  } finally {
    await handle.close();
  }
}

describe('certdesk stats recount', () => {
  it('reports and repairs counter drift on embedded PGlite', async () => {
    const dataDir = mkdtempSync(path.join(os.tmpdir(), 'certdesk-stats-'));
    const open = async () => {
      const handle = await openDatabase({ databaseUrl: null, pgliteDir: path.join(dataDir, 'pglite') });
      await migrate(handle);
      return handle;
    };
    try {
      await exercise(open, ['--data-dir', dataDir]);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  const adminUrl = process.env.TEST_DATABASE_URL;
  if (adminUrl) {
    it('reports and repairs counter drift on PostgreSQL', async () => {
      const handle = await openTestPostgres(adminUrl);
      const url = handle.description.replace(/^PostgreSQL /, '');
      let first = true;
      // The suite's own database: reopen it by URL after the CLI ran; the last close drops it.
      const open = async () => {
        if (first) {
          first = false;
          return { ...handle, close: async () => undefined };
        }
        const reopened = await openDatabase({ databaseUrl: url, pgliteDir: null });
        return { ...reopened, close: async () => { await reopened.close(); await handle.close(); } };
      };
      await exercise(open, ['--database-url', url]);
    });
  }
});

// The temporary object storage folders this file made (test/helpers/fixtures.ts).
after(removeTemporaryObjectStorages);
