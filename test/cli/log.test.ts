/**
 * `certdesk log key` and `certdesk log status` on the embedded database: the key is made once and printed
 * the same every time, in the C2SP signed-note verifier key form, named for `<public base URL>/log`, and
 * stored encrypted when MASTER_KEY is set; the status counts what waits, is sequenced and is published.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { sql } from 'kysely';
import { buildProgram } from '../../src/cli/main.js';
import { openDatabase } from '../../src/storage/database.js';

async function run(args: string[]): Promise<string> {
  const chunks: string[] = [];
  const write = process.stdout.write.bind(process.stdout);
  process.stdout.write = ((chunk: string | Uint8Array) => {
    if (typeof chunk === 'string') chunks.push(chunk);
    return true;
  }) as typeof process.stdout.write;
  try {
    await (await buildProgram()).parseAsync(['node', 'certdesk', ...args]);
  } finally {
    process.stdout.write = write;
  }
  return chunks.join('');
}

describe('certdesk log (embedded database)', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'certdesk-log-cli-'));
  after(() => rmSync(dir, { recursive: true, force: true }));
  const base = ['--data-dir', dir, '--public-base-url', 'https://certs.example.org/desk/'];
  const masterKey = process.env.MASTER_KEY;
  after(() => {
    if (masterKey === undefined) delete process.env.MASTER_KEY;
    else process.env.MASTER_KEY = masterKey;
  });

  it('prints one verifier key, the same every time, named for the public base URL, kept encrypted; says how far the log is', async () => {
    process.env.MASTER_KEY = 'a-master-key-for-the-log-cli-test-0123456789';
    const key = (await run([...base, 'log', 'key'])).trim();
    assert.match(key, /^certs\.example\.org\/desk\/log\+[0-9a-f]{8}\+[A-Za-z0-9+/]{44}$/);
    assert.equal(Buffer.from(key.split('+').slice(2).join('+'), 'base64')[0], 0x01, 'an Ed25519 key (type 0x01)');
    assert.equal((await run([...base, 'log', 'key'])).trim(), key);
    const db = await openDatabase({ databaseUrl: null, pgliteDir: path.join(dir, 'pglite') });
    try {
      const row = (await sql<{ name: string; encrypted: boolean; private_key: string }>`SELECT name, encrypted, private_key FROM transparency_log_keys`.execute(db.db)).rows[0]!;
      assert.equal(row.name, 'certs.example.org/desk/log');
      assert.equal(row.encrypted, true);
      assert.match(row.private_key, /^v1\./, 'the MASTER_KEY envelope');
    } finally {
      await db.close();
    }
    // (One test: the runner reports through this process's stdout, which run() borrows.)
    const status = JSON.parse(await run([...base, 'log', 'status', '--json'])) as { tree_size: number; published_size: number | null; unpublished_entries: number };
    assert.deepEqual([status.tree_size, status.published_size, status.unpublished_entries], [0, null, 0]);
    assert.match(await run([...base, 'log', 'status']), /^sequenced\s+0 entries\npublished\s+nothing yet\n/);
  });
});
