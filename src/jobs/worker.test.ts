/**
 * The job queue on a real database (PGlite, and PostgreSQL when TEST_DATABASE_URL is set). The queue reads
 * the database's clock; tests move it with `advanceJobTime` instead of sleeping. Claims, leases taken over
 * after a worker dies mid-job, backoff, permanent errors, the final failure in one transaction with its
 * hook, singleton keys, and several workers claiming at once without running a job twice.
 */
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { sql } from 'kysely';
import { advanceJobTime } from '../../test/helpers/job-time.js';
import { databaseTargets } from '../../test/helpers/database.js';
import { PermanentJobError } from '../domain/background/job-handler.js';
import { enqueueJob } from './job-queue.js';
import { countJobs, findJobs, requeueFailedJob } from './job.repository.js';
import type { DatabaseHandle } from '../storage/database.js';
import { Worker, type AttemptOutcome, type JobHandler } from './worker.js';

for (const target of databaseTargets()) {
  describe(`job queue on ${target.name}`, () => {
    let handle: DatabaseHandle;
    before(async () => {
      handle = await target.open();
    });
    after(() => handle.close());
    beforeEach(async () => {
      await sql`DELETE FROM jobs`.execute(handle.db);
    });

    const workerWith = (handlers: Record<string, JobHandler>, options: { leaseMs?: number; concurrency?: number; workerId?: string; outcomes?: AttemptOutcome[]; errors?: unknown[] } = {}) =>
      new Worker({
        db: handle.db,
        handlers,
        concurrency: options.concurrency ?? 2,
        leaseMs: options.leaseMs ?? 30_000,
        workerId: options.workerId,
        // Minutes, so the real time that passes while a test runs never makes a job due early.
        backoffMs: (n) => 60_000 * 2 ** n,
        onError: (err) => options.errors?.push(err),
        observer: { attemptFinished: (_kind, outcome) => options.outcomes?.push(outcome) },
      });

    it('runs a due job once, and a job scheduled later only when it is due by the database clock', async () => {
      const seen: unknown[] = [];
      const worker = workerWith({ echo: { run: async (p) => void seen.push(p.n) } });
      await enqueueJob(handle.db, 'echo', { n: 1 });
      await enqueueJob(handle.db, 'echo', { n: 2 }, { delayMs: 60_000 });
      assert.equal(await worker.runDue(), 1);
      assert.equal(await worker.runDue(), 0);
      await advanceJobTime(handle.db, 60_000);
      assert.equal(await worker.runDue(), 1);
      assert.deepEqual(seen, [1, 2]);
      assert.deepEqual((await findJobs(handle.db, { kind: 'echo' })).map((j) => [j.state, j.attempts]), [['done', 1], ['done', 1]]);
    });

    it('re-runs the job of a worker killed mid-job once its lease runs out', async () => {
      let calls = 0;
      let started!: () => void;
      const running = new Promise<void>((r) => (started = r));
      // Worker A's handler never finishes: the process "died" holding the job (we never await it, and its
      // heartbeat, every third of the 60 s lease, does not fire within this test).
      const stuck = workerWith({ analyze: { run: () => new Promise<void>(() => (calls++, started())) } }, { leaseMs: 60_000, workerId: 'A' });
      const healthy = workerWith({ analyze: { run: async () => void calls++ } }, { leaseMs: 60_000, workerId: 'B' });
      await enqueueJob(handle.db, 'analyze', { order_id: 'o1' });
      void stuck.runDue();
      await running;
      assert.equal(calls, 1);
      assert.equal(await healthy.runDue(), 0, 'the lease still holds');
      await advanceJobTime(handle.db, 60_001);
      assert.equal(await healthy.runDue(), 1, 'taken over after the lease ran out');
      assert.equal(calls, 2);
      assert.deepEqual((await findJobs(handle.db, { kind: 'analyze' })).map((j) => [j.state, j.attempts]), [['done', 2]]);
    });

    it('retries a transient error with backoff, then fails it for good (transient) and calls the final-failure hook once', async () => {
      const finals: string[] = [];
      const kinds: string[] = [];
      const outcomes: AttemptOutcome[] = [];
      let attempts = 0;
      const worker = workerWith(
        {
          flaky: {
            run: async () => {
              attempts++;
              throw new Error(`boom ${attempts}`);
            },
            onFinalFailure: async (_p, error, { failureKind }) => void (finals.push(error), kinds.push(failureKind)),
          },
        },
        { outcomes },
      );
      await enqueueJob(handle.db, 'flaky', {}, { maxAttempts: 3 });
      assert.equal(await worker.runDue(), 1);
      await advanceJobTime(handle.db, 60_000);
      assert.equal(await worker.runDue(), 0, 'backoff after attempt 1 is 2 min');
      await advanceJobTime(handle.db, 60_000);
      assert.equal(await worker.runDue(), 1);
      await advanceJobTime(handle.db, 180_000);
      assert.equal(await worker.runDue(), 0, 'backoff after attempt 2 is 4 min');
      await advanceJobTime(handle.db, 60_000);
      assert.equal(await worker.runDue(), 1);
      await advanceJobTime(handle.db, 3_600_000);
      assert.equal(await worker.runDue(), 0, 'no attempt left');
      assert.equal(attempts, 3);
      assert.deepEqual(finals, ['Error: boom 3']);
      assert.deepEqual(kinds, ['transient']);
      assert.deepEqual(outcomes, ['retried', 'retried', 'failed']);
      const [job] = await findJobs(handle.db, { kind: 'flaky' });
      assert.deepEqual([job!.state, job!.last_error, job!.failure_kind], ['failed', 'Error: boom 3', 'transient']);
    });

    it('a PermanentJobError fails the job at its first attempt, with no retry', async () => {
      const kinds: string[] = [];
      let attempts = 0;
      const worker = workerWith({
        bad: {
          run: async () => {
            attempts++;
            throw new PermanentJobError('truncated PNG');
          },
          onFinalFailure: async (_p, _e, { failureKind }) => void kinds.push(failureKind),
        },
      });
      await enqueueJob(handle.db, 'bad', {}, { maxAttempts: 25 });
      assert.equal(await worker.runDue(), 1);
      await advanceJobTime(handle.db, 7 * 86_400_000);
      assert.equal(await worker.runDue(), 0);
      assert.equal(attempts, 1);
      assert.deepEqual(kinds, ['permanent']);
      const [job] = await findJobs(handle.db, { kind: 'bad' });
      assert.deepEqual([job!.state, job!.attempts, job!.failure_kind, job!.last_error], ['failed', 1, 'permanent', 'PermanentJobError: truncated PNG']);
    });

    it('the final-failure hook writes in the transaction that fails the job; a throwing hook commits nothing and the job is failed again after its lease', async () => {
      let hookCalls = 0;
      const errors: unknown[] = [];
      const outcomes: AttemptOutcome[] = [];
      const handler: JobHandler = {
        run: async () => {
          throw new PermanentJobError('bad bytes');
        },
        async onFinalFailure(_p, _e, { trx }) {
          hookCalls++;
          // The hook's own write (a marker job), then, the first time, a failure after it.
          await enqueueJob(trx, 'marker', { call: hookCalls });
          if (hookCalls === 1) throw new Error('hook broke');
        },
      };
      const worker = workerWith({ doomed: handler }, { leaseMs: 20_000, errors, outcomes });
      await enqueueJob(handle.db, 'doomed', {});
      assert.equal(await worker.runDue(), 1);
      assert.equal(hookCalls, 1);
      assert.match(String(errors[0]), /hook broke/);
      assert.deepEqual(await findJobs(handle.db, { kind: 'marker' }), [], "the hook's write rolled back");
      let [job] = await findJobs(handle.db, { kind: 'doomed' });
      assert.deepEqual([job!.state, job!.last_error], ['running', 'PermanentJobError: bad bytes'], 'still claimed, waiting for its lease');
      assert.equal(await worker.runDue(), 0, 'the lease holds');
      await advanceJobTime(handle.db, 20_001);
      assert.equal(await worker.runDue(), 1);
      assert.equal(hookCalls, 2);
      [job] = await findJobs(handle.db, { kind: 'doomed' });
      assert.equal(job!.state, 'failed');
      assert.deepEqual((await findJobs(handle.db, { kind: 'marker' })).map((j) => j.payload), [{ call: 2 }]);
      assert.deepEqual(outcomes, ['hook_failed', 'failed']);
    });

    it('a job whose worker died on its last attempt goes to the final-failure hook', async () => {
      const finals: string[] = [];
      let started!: () => void;
      const running = new Promise<void>((r) => (started = r));
      const stuck = workerWith({ last: { run: () => new Promise<void>(() => started()) } }, { leaseMs: 30_000, workerId: 'A' });
      const other = workerWith({ last: { run: async () => assert.fail('must not run again'), onFinalFailure: async (_p, e) => void finals.push(e) } }, { leaseMs: 30_000, workerId: 'B' });
      await enqueueJob(handle.db, 'last', {}, { maxAttempts: 1 });
      void stuck.runDue();
      await running;
      await advanceJobTime(handle.db, 30_001);
      assert.equal(await other.runDue(), 1);
      assert.equal(finals.length, 1);
      assert.match(finals[0]!, /attempts exhausted/);
      assert.equal((await findJobs(handle.db, { kind: 'last' }))[0]!.state, 'failed');
    });

    it('keeps one unfinished job per singleton key', async () => {
      const first = await enqueueJob(handle.db, 'single', {}, { singletonKey: 'k' });
      assert.notEqual(first, null);
      assert.equal(await enqueueJob(handle.db, 'single', {}, { singletonKey: 'k' }), null);
      await workerWith({ single: { run: async () => undefined } }).runDue();
      assert.notEqual(await enqueueJob(handle.db, 'single', {}, { singletonKey: 'k' }), null, 'a finished job frees the key');
    });

    it('an operator re-queues a failed job, its attempts counted afresh; the counts by kind and state follow', async () => {
      let fail = true;
      const worker = workerWith({
        once: {
          run: async () => {
            if (fail) throw new Error('down');
          },
        },
      });
      const id = (await enqueueJob(handle.db, 'once', {}, { maxAttempts: 1 }))!;
      await enqueueJob(handle.db, 'other', {}, { delayMs: 60_000 });
      assert.equal(await worker.runDue(), 1);
      const counts = (await countJobs(handle.db)).sort((a, b) => a.kind.localeCompare(b.kind));
      assert.deepEqual(counts, [
        { kind: 'once', state: 'failed', due: 1, count: 1 },
        { kind: 'other', state: 'queued', due: 0, count: 1 },
      ]);
      assert.equal(await requeueFailedJob(handle.db, id + 1), false, 'not a failed job');
      assert.equal(await requeueFailedJob(handle.db, id), true);
      fail = false;
      assert.equal(await worker.runDue(), 1);
      const [job] = await findJobs(handle.db, { kind: 'once' });
      assert.deepEqual([job!.state, job!.attempts, job!.failure_kind], ['done', 1, null]);
    });

    it('several workers claiming at once run every job exactly once', async () => {
      const runs = new Map<number, number>();
      const handler: JobHandler = { run: async (p) => void runs.set(Number(p.n), (runs.get(Number(p.n)) ?? 0) + 1) };
      for (let n = 0; n < 40; n++) await enqueueJob(handle.db, 'many', { n });
      const workers = Array.from({ length: 4 }, (_, i) => workerWith({ many: handler }, { concurrency: 3, workerId: `w${i}` }));
      for (let round = 0; round < 20 && runs.size < 40; round++) await Promise.all(workers.map((w) => w.runDue()));
      assert.equal(runs.size, 40);
      assert.ok([...runs.values()].every((count) => count === 1));
    });

    it('the polling loop runs queued work and stops cleanly', async () => {
      const done: number[] = [];
      const worker = new Worker({ db: handle.db, concurrency: 2, pollMs: 10, handlers: { loop: { run: async (p) => void done.push(Number(p.n)) } } });
      for (let n = 0; n < 5; n++) await enqueueJob(handle.db, 'loop', { n });
      worker.start();
      for (let i = 0; i < 3000 && done.length < 5; i++) await new Promise((r) => setTimeout(r, 10));
      await worker.stop(1000);
      assert.deepEqual(done.sort(), [0, 1, 2, 3, 4]);
    });
  });
}
