/**
 * The job queue on a real database (PGlite, and PostgreSQL when TEST_DATABASE_URL is set), time moved by a
 * manual clock: claims, leases taken over after a worker dies mid-job, backoff, final failure, singleton keys,
 * and several workers claiming at once without running a job twice.
 */
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { sql } from 'kysely';
import { databaseTargets } from '../../test/helpers/database.js';
import { ManualClock } from '../domain/time/clock.js';
import type { DatabaseHandle } from '../storage/database.js';
import { enqueueJob } from './job-queue.js';
import { findJobs } from './job.repository.js';
import { Worker, type JobHandler } from './worker.js';

for (const target of databaseTargets()) {
  describe(`job queue on ${target.name}`, () => {
    let handle: DatabaseHandle;
    let clock: ManualClock;
    before(async () => {
      handle = await target.open();
    });
    after(() => handle.close());
    beforeEach(async () => {
      await sql`DELETE FROM jobs`.execute(handle.db);
      clock = new ManualClock(Date.UTC(2030, 0, 1));
    });

    const workerWith = (handlers: Record<string, JobHandler>, options: { leaseMs?: number; concurrency?: number; workerId?: string } = {}) =>
      new Worker({ db: handle.db, clock, handlers, concurrency: options.concurrency ?? 2, leaseMs: options.leaseMs ?? 30_000, workerId: options.workerId, backoffMs: (n) => 1000 * 2 ** n });

    it('runs a due job once, and a job scheduled later only when it is due', async () => {
      const seen: unknown[] = [];
      const worker = workerWith({ echo: { run: async (p) => void seen.push(p.n) } });
      await enqueueJob(handle.db, clock, 'echo', { n: 1 });
      await enqueueJob(handle.db, clock, 'echo', { n: 2 }, { runAt: new Date(clock.now().getTime() + 60_000) });
      assert.equal(await worker.runDue(), 1);
      assert.equal(await worker.runDue(), 0);
      clock.advance(60_000);
      assert.equal(await worker.runDue(), 1);
      assert.deepEqual(seen, [1, 2]);
      assert.deepEqual((await findJobs(handle.db, { kind: 'echo' })).map((j) => [j.state, j.attempts]), [['done', 1], ['done', 1]]);
    });

    it('re-runs the job of a worker killed mid-job once its lease runs out', async () => {
      let calls = 0;
      let started!: () => void;
      const running = new Promise<void>((r) => (started = r));
      // Worker A's handler never finishes: the process "died" holding the job (we never await it, and its
      // heartbeat, every third of the 10 s lease, does not fire within this test).
      const stuck = workerWith({ analyze: { run: () => new Promise<void>(() => (calls++, started())) } }, { leaseMs: 10_000, workerId: 'A' });
      const healthy = workerWith({ analyze: { run: async () => void calls++ } }, { leaseMs: 10_000, workerId: 'B' });
      await enqueueJob(handle.db, clock, 'analyze', { order_id: 'o1' });
      void stuck.runDue();
      await running;
      assert.equal(calls, 1);
      assert.equal(await healthy.runDue(), 0, 'the lease still holds');
      clock.advance(10_001);
      assert.equal(await healthy.runDue(), 1, 'taken over after the lease ran out');
      assert.equal(calls, 2);
      assert.deepEqual((await findJobs(handle.db, { kind: 'analyze' })).map((j) => [j.state, j.attempts]), [['done', 2]]);
    });

    it('retries with exponential backoff, then fails for good and calls the final-failure hook once', async () => {
      const finals: string[] = [];
      let attempts = 0;
      const worker = workerWith({
        flaky: {
          run: async () => {
            attempts++;
            throw new Error(`boom ${attempts}`);
          },
          onFinalFailure: async (_p, error) => void finals.push(error),
        },
      });
      await enqueueJob(handle.db, clock, 'flaky', {}, { maxAttempts: 3 });
      assert.equal(await worker.runDue(), 1);
      clock.advance(1999);
      assert.equal(await worker.runDue(), 0, 'backoff after attempt 1 is 2 s');
      clock.advance(1);
      assert.equal(await worker.runDue(), 1);
      clock.advance(3999);
      assert.equal(await worker.runDue(), 0, 'backoff after attempt 2 is 4 s');
      clock.advance(1);
      assert.equal(await worker.runDue(), 1);
      clock.advance(3_600_000);
      assert.equal(await worker.runDue(), 0, 'no attempt left');
      assert.equal(attempts, 3);
      assert.deepEqual(finals, ['Error: boom 3']);
      const [job] = await findJobs(handle.db, { kind: 'flaky' });
      assert.equal(job!.state, 'failed');
      assert.equal(job!.last_error, 'Error: boom 3');
    });

    it('a job whose worker died on its last attempt goes to the final-failure hook', async () => {
      const finals: string[] = [];
      let started!: () => void;
      const running = new Promise<void>((r) => (started = r));
      const stuck = workerWith({ last: { run: () => new Promise<void>(() => started()) } }, { leaseMs: 3000, workerId: 'A' });
      const other = workerWith({ last: { run: async () => assert.fail('must not run again'), onFinalFailure: async (_p, e) => void finals.push(e) } }, { leaseMs: 3000, workerId: 'B' });
      await enqueueJob(handle.db, clock, 'last', {}, { maxAttempts: 1 });
      void stuck.runDue();
      await running;
      clock.advance(3001);
      assert.equal(await other.runDue(), 1);
      assert.equal(finals.length, 1);
      assert.match(finals[0]!, /attempts exhausted/);
      assert.equal((await findJobs(handle.db, { kind: 'last' }))[0]!.state, 'failed');
    });

    it('keeps one unfinished job per singleton key', async () => {
      const first = await enqueueJob(handle.db, clock, 'single', {}, { singletonKey: 'k' });
      assert.notEqual(first, null);
      assert.equal(await enqueueJob(handle.db, clock, 'single', {}, { singletonKey: 'k' }), null);
      await workerWith({ single: { run: async () => undefined } }).runDue();
      assert.notEqual(await enqueueJob(handle.db, clock, 'single', {}, { singletonKey: 'k' }), null, 'a finished job frees the key');
    });

    it('several workers claiming at once run every job exactly once', async () => {
      const runs = new Map<number, number>();
      const handler: JobHandler = { run: async (p) => void runs.set(Number(p.n), (runs.get(Number(p.n)) ?? 0) + 1) };
      for (let n = 0; n < 40; n++) await enqueueJob(handle.db, clock, 'many', { n });
      const workers = Array.from({ length: 4 }, (_, i) => workerWith({ many: handler }, { concurrency: 3, workerId: `w${i}` }));
      for (let round = 0; round < 20 && runs.size < 40; round++) await Promise.all(workers.map((w) => w.runDue()));
      assert.equal(runs.size, 40);
      assert.ok([...runs.values()].every((count) => count === 1));
    });

    it('the polling loop runs queued work and stops cleanly', async () => {
      const done: number[] = [];
      const worker = new Worker({ db: handle.db, clock, concurrency: 2, pollMs: 10, handlers: { loop: { run: async (p) => void done.push(Number(p.n)) } } });
      for (let n = 0; n < 5; n++) await enqueueJob(handle.db, clock, 'loop', { n });
      worker.start();
      for (let i = 0; i < 200 && done.length < 5; i++) await new Promise((r) => setTimeout(r, 10));
      await worker.stop(1000);
      assert.deepEqual(done.sort(), [0, 1, 2, 3, 4]);
    });
  });
}
