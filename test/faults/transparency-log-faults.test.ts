/**
 * The transparency log under faults, with the real `certdesk serve` (built dist/) as child processes:
 * - `kill -9` of the serve that sequences, mid-batch (as soon as its first checkpoint is published, and
 *   at a random moment of a second run), then a restart: the log completes with no fork (every checkpoint
 *   anyone saw over HTTP is a prefix of the final tree), no entry lost, none numbered twice, every tile in
 *   storage right; on PGlite and PostgreSQL.
 * - two `serve` instances on one PostgreSQL and one object storage: exactly one sequences; when it is
 *   killed the other takes over (its session is gone) and finishes, with no fork.
 * The audit is test/transparency-log/log-audit.ts (the project's own Merkle code).
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { insertSyntheticCertificates } from '../../src/domain/certificates/synthetic-certificates.js';
import { systemClock } from '../../src/domain/time/clock.js';
import { openCheckpoint, readVerifierKey, rootOf } from '../../src/domain/transparency-log/index.js';
import { ensureSigningKey, loadKeyRing } from '../../src/oauth/keys/signing-keys.js';
import { openDatabase, type DatabaseHandle } from '../../src/storage/database.js';
import { migrate } from '../../src/storage/migrate.js';
import { LocalDirectoryStorage } from '../../src/storage/object-storage/index.js';
import { createThrowawayDatabase, type ThrowawayDatabase } from '../helpers/database.js';
import { ACME, loadStandardFixture, USERS } from '../helpers/fixtures.js';
import { auditLog } from '../transparency-log/log-audit.js';
import { request, ServedProcess } from './served-process.js';

const BASE_URL = 'https://log.certdesk.test';
const ORIGIN = 'log.certdesk.test/log';

/** Adds `count` certified orders with their certificates (and their log entries, waiting). */
async function addCertificates(db: DatabaseHandle, count: number, prefix: string): Promise<void> {
  await ensureSigningKey(db.db, null);
  const ring = await loadKeyRing(db.db, { masterKey: null, accessTokenTtlSeconds: 3600 });
  await insertSyntheticCertificates(
    db.db,
    { clock: systemClock, signingKey: () => ring.signing, issuerUrl: BASE_URL, publicBaseUrl: BASE_URL },
    { organizationId: ACME.id, organizationName: ACME.name, ownerEmail: USERS.admin.email, count, orderIdPrefix: prefix, batchSize: 500 },
  );
}

/** The size of the published checkpoint, or null (none yet, or the server is gone). */
async function publishedSize(server: ServedProcess, seen: Set<string>): Promise<number | null> {
  try {
    const res = await request(server.baseUrl, false, { path: '/log/checkpoint', timeoutMs: 5000 });
    if (res.status !== 200) return null;
    seen.add(res.body);
    return Number(res.body.split('\n')[1]);
  } catch {
    return null;
  }
}

/** Polls until `done` (generous deadline on a loaded machine; no fixed sleeps). */
async function until<T>(read: () => Promise<T>, done: (value: T) => boolean, what: string, deadlineMs = 180_000): Promise<T> {
  const started = Date.now();
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() - started > deadlineMs) throw new Error(`${what}: not within ${deadlineMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Every checkpoint seen over HTTP is signed by the log's key and is a prefix of the final tree. */
function assertNoFork(seen: Set<string>, key: string, roots: Map<number, Buffer>, leaves: Buffer[], rootOfPrefix: (n: number) => Buffer): void {
  for (const note of seen) {
    const checkpoint = openCheckpoint(note, key);
    assert.equal(checkpoint.origin, ORIGIN);
    assert.ok(checkpoint.size <= leaves.length);
    const root = roots.get(checkpoint.size) ?? rootOfPrefix(checkpoint.size);
    assert.ok(checkpoint.root.equals(root), `the checkpoint of size ${checkpoint.size} seen over HTTP is a prefix of the final log`);
  }
}

interface Target {
  name: 'pglite' | 'postgres';
  env: Record<string, string>;
  open(): Promise<DatabaseHandle>;
  drop(): Promise<void>;
}

function targets(dir: string): Array<() => Promise<Target>> {
  const list: Array<() => Promise<Target>> = [
    async () => ({
      name: 'pglite',
      env: { DATA_DIR: dir },
      open: () => openDatabase({ databaseUrl: null, pgliteDir: path.join(dir, 'pglite') }),
      drop: async () => undefined,
    }),
  ];
  const adminUrl = process.env.TEST_DATABASE_URL;
  if (adminUrl) {
    list.push(async () => {
      const database: ThrowawayDatabase = await createThrowawayDatabase(adminUrl, 'tlogfault');
      return {
        name: 'postgres',
        env: { DATABASE_URL: database.url, DATA_DIR: dir },
        open: () => openDatabase({ databaseUrl: database.url, pgliteDir: null, poolSize: 3 }),
        drop: () => database.drop(),
      };
    });
  }
  return list;
}

const TOTAL = 6000;

for (const [n, name] of (process.env.TEST_DATABASE_URL ? ['pglite', 'postgres'] : ['pglite']).entries()) {
  describe(`transparency log: kill -9 of the sequencing serve, then a restart (${name})`, () => {
    let dir: string;
    let target: Target;
    const servers: ServedProcess[] = [];

    before(async () => {
      dir = mkdtempSync(path.join(os.tmpdir(), 'certdesk-tlog-kill-'));
      target = await targets(dir)[n]!();
      const db = await target.open();
      try {
        await migrate(db);
        await loadStandardFixture(db, new LocalDirectoryStorage(path.join(dir, 'objects')));
        await addCertificates(db, TOTAL, 'ord_kill_');
      } finally {
        await db.close();
      }
    });
    after(async () => {
      for (const s of servers) if (s.alive) s.child.kill('SIGKILL');
      for (const s of servers) await s.waitForExit();
      await target?.drop();
      if (dir) rmSync(dir, { recursive: true, force: true });
    });

    it('never forks, loses or duplicates an entry; the restarted serve completes what the killed one left', async () => {
      const env = { ...target.env, PUBLIC_BASE_URL: BASE_URL, LOG_LEVEL: 'info', WORKER_CONCURRENCY: '0' };
      const seen = new Set<string>();
      // 1: killed as soon as its first checkpoint is out (more batches were still to come).
      const first = await ServedProcess.start(env);
      servers.push(first);
      const firstSize = await until(() => publishedSize(first, seen), (s) => s !== null && s > 0, 'a first checkpoint');
      first.child.kill('SIGKILL');
      await first.waitForExit();
      assert.ok(firstSize! < TOTAL, `killed mid-way (${firstSize} of ${TOTAL} published)`);
      // 2: killed at a moment of the sequencer's work nobody chose (a random delay after listening).
      const second = await ServedProcess.start(env);
      servers.push(second);
      await new Promise((resolve) => setTimeout(resolve, 50 + Math.floor(Math.random() * 1500)));
      await publishedSize(second, seen);
      second.child.kill('SIGKILL');
      await second.waitForExit();
      // 3: runs to the end.
      const third = await ServedProcess.start(env);
      servers.push(third);
      await until(() => publishedSize(third, seen), (s) => s === TOTAL, `all ${TOTAL} entries published`);
      await third.stop();
      const db = await target.open();
      try {
        const key = (await readVerifierKey(db.db))!;
        const report = await auditLog(db.db, new LocalDirectoryStorage(path.join(dir, 'objects')), key);
        assert.equal(report.entries, TOTAL, 'every entry is in the log once');
        assert.equal(report.publishedSize, TOTAL);
        assertNoFork(seen, key, report.roots, report.leaves, (size) => rootOf(report.leaves.slice(0, size)));
        const waiting = await sql<{ n: number }>`SELECT count(*) AS n FROM transparency_log_entries WHERE log_index IS NULL`.execute(db.db);
        assert.equal(waiting.rows[0]!.n, 0);
      } finally {
        await db.close();
      }
    });
  });
}

if (process.env.TEST_DATABASE_URL) {
  describe('transparency log: two serve instances on one PostgreSQL', () => {
    let dir: string;
    let database: ThrowawayDatabase;
    const servers: ServedProcess[] = [];

    before(async () => {
      dir = mkdtempSync(path.join(os.tmpdir(), 'certdesk-tlog-two-'));
      database = await createThrowawayDatabase(process.env.TEST_DATABASE_URL!, 'tlogtwo');
      const db = await openDatabase({ databaseUrl: database.url, pgliteDir: null, poolSize: 3 });
      try {
        await migrate(db);
        await loadStandardFixture(db, new LocalDirectoryStorage(path.join(dir, 'objects')));
      } finally {
        await db.close();
      }
    });
    after(async () => {
      for (const s of servers) if (s.alive) s.child.kill('SIGKILL');
      for (const s of servers) await s.waitForExit();
      await database?.drop();
      if (dir) rmSync(dir, { recursive: true, force: true });
    });

    it('exactly one sequences; when it is killed the other takes over; no fork', async () => {
      const env = { DATABASE_URL: database.url, DATA_DIR: dir, PUBLIC_BASE_URL: BASE_URL, LOG_LEVEL: 'info', WORKER_CONCURRENCY: '0' };
      const a = await ServedProcess.start({ ...env, INSTANCE_NAME: 'instance-a' });
      servers.push(a);
      const b = await ServedProcess.start({ ...env, INSTANCE_NAME: 'instance-b' });
      servers.push(b);
      const seen = new Set<string>();
      const db = await openDatabase({ databaseUrl: database.url, pgliteDir: null, poolSize: 3 });
      try {
        const sequencers = new Set<string>();
        const watch = async () => {
          const row = (await sql<{ sequencer: string | null }>`SELECT sequencer FROM transparency_log_state`.execute(db.db)).rows[0]!;
          if (row.sequencer) sequencers.add(row.sequencer.split('/')[0]!);
        };
        // Certificates arrive while both run, in several transactions.
        for (let round = 0; round < 4; round++) {
          await addCertificates(db, 500, `ord_two_${round}_`);
          await watch();
          await until(async () => (await watch(), await publishedSize(round % 2 ? a : b, seen)), (s) => s === (round + 1) * 500, `round ${round} published`);
        }
        assert.equal(sequencers.size, 1, `one sequencer led throughout: ${[...sequencers].join(', ')}`);
        const leaderName = [...sequencers][0]!;
        const [leader, follower] = leaderName === 'instance-a' ? [a, b] : [b, a];
        assert.equal(leader.logged('this process is now the transparency log sequencer').length, 1);
        assert.equal(follower.logged('this process is now the transparency log sequencer').length, 0, 'the other never sequenced');
        // The leader is killed with entries waiting: the follower takes over (the leader's session is gone) and finishes.
        await addCertificates(db, 1500, 'ord_two_late_');
        leader.child.kill('SIGKILL');
        await leader.waitForExit();
        await until(() => publishedSize(follower, seen), (s) => s === 3500, 'the follower published everything');
        assert.equal(follower.logged('this process is now the transparency log sequencer').length, 1, 'the follower took over');
        const key = (await readVerifierKey(db.db))!;
        const report = await auditLog(db.db, new LocalDirectoryStorage(path.join(dir, 'objects')), key);
        assert.equal(report.entries, 3500);
        assertNoFork(seen, key, report.roots, report.leaves, (size) => rootOf(report.leaves.slice(0, size)));
      } finally {
        await db.close();
      }
    });
  });
}
