/**
 * The operators' job and re-analysis commands end to end: the real CLI (spawned) against a temporary
 * database (embedded PGlite in a data directory, or a throw-away PostgreSQL database with TEST_DATABASE_URL).
 * Failures are made by the real queue and the real analysis hook between commands: one order failed for a
 * transient cause, one for a permanent cause.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { PermanentJobError } from '../../src/domain/background/job-handler.js';
import { ANALYZE_ORDER_JOB, analysisJobKey } from '../../src/domain/background/job-kinds.js';
import { analyzeOrderJob } from '../../src/domain/analysis/pipeline.js';
import { toOrderRow } from '../../src/domain/orders/order-document.js';
import { createOrder } from '../../src/domain/orders/order-lifecycle.service.js';
import { listOrderEvents, readOrder } from '../../src/domain/orders/order-lifecycle.repository.js';
import { systemClock } from '../../src/domain/time/clock.js';
import { enqueueJob } from '../../src/jobs/job-queue.js';
import { Worker } from '../../src/jobs/worker.js';
import { LocalDirectoryStorage } from '../../src/storage/object-storage/index.js';
import { CliScratch, CLI_DATABASES, expectOneLineError as refused, lines } from './cli-harness.js';

const SEED = fileURLToPath(new URL('../../docs/examples/seed-small.json', import.meta.url));
const ORG = '5a11e000-0000-4000-8000-000000000001';

for (const database of CLI_DATABASES) describe(`certdesk jobs and orders reanalyse (end to end, ${database})`, () => {
  let scratch: CliScratch;
  const certdesk = (args: string[]) => scratch.run(args);

  before(async () => {
    scratch = await CliScratch.open('cli-jobs', database);
    const seeded = await certdesk(['seed', SEED]);
    assert.equal(seeded.code, 0, seeded.stderr);
  });
  after(async () => {
    await scratch?.close();
  });

  it('lists failed jobs with their cause, retries one, re-analyses a transient failure and refuses a permanent one', async () => {
    const transientOrder = 'small-0003'; // In Progress in the seed
    const permanentOrder = randomUUID();
    await scratch.withDatabase(async (h) => {
      await createOrder(h.db, systemClock, toOrderRow(ORG, {
        order_id: permanentOrder, username: 'op', email: 'op@example.com', order_state: 'In Progress', order_title: 'bad bytes',
        asset_id: permanentOrder, asset_name: 'x.png', asset_last_modified_timestamp: '0', ordered_by: null, creation_time: new Date().toISOString(), project_id: null,
      }), { key: 'nowhere', contentType: 'image/png', size: 1 }, { kind: 'system', component: 'test' });
      for (const orderId of [transientOrder, permanentOrder]) {
        await enqueueJob(h.db, ANALYZE_ORDER_JOB, { order_id: orderId }, { singletonKey: analysisJobKey(orderId), maxAttempts: 1 });
      }
      await enqueueJob(h.db, 'cleanup', {}, { maxAttempts: 1 });
      // The real final-failure hook of the analysis; the run fails as a detection outage or as bad bytes.
      const real = analyzeOrderJob({ db: h.db, clock: systemClock, storage: new LocalDirectoryStorage(scratch.dir) });
      const worker = new Worker({
        db: h.db,
        concurrency: 4,
        handlers: {
          [ANALYZE_ORDER_JOB]: {
            run: async (p) => {
              if (p.order_id === permanentOrder) throw new PermanentJobError('truncated PNG');
              throw new Error('detection service refused the connection');
            },
            onFinalFailure: real.onFinalFailure,
          },
          cleanup: { run: async () => { throw new Error('storage unreachable'); } },
        },
      });
      assert.equal(await worker.runDue(), 3);
      assert.equal((await readOrder(h.db, transientOrder))?.order_state, 'Failed');
      assert.equal((await readOrder(h.db, permanentOrder))?.order_state, 'Failed');
    });

    const listed = await certdesk(['jobs', 'list', '--failed', '--json']);
    assert.equal(listed.code, 0, listed.stderr);
    const failed = JSON.parse(listed.stdout) as Array<{ id: number; kind: string; state: string; failure_kind: string; last_error: string; payload: { order_id?: string } }>;
    assert.deepEqual(failed.map((j) => [j.kind, j.state, j.failure_kind, j.payload.order_id ?? null]), [
      [ANALYZE_ORDER_JOB, 'failed', 'transient', transientOrder],
      [ANALYZE_ORDER_JOB, 'failed', 'permanent', permanentOrder],
      ['cleanup', 'failed', 'transient', null],
    ]);
    assert.match(failed[1]!.last_error, /PermanentJobError: truncated PNG/);
    const text = await certdesk(['jobs', 'list']);
    assert.equal(text.code, 0, text.stderr);
    assert.equal(lines(text.stdout).length, 3);
    assert.match(text.stdout, /analyze_order {2}failed {2}attempt 1\/1 .*\[permanent\] PermanentJobError: truncated PNG/);

    // jobs retry: a failed job goes back to the queue; anything else is refused.
    const cleanupId = failed[2]!.id;
    const retried = await certdesk(['jobs', 'retry', String(cleanupId), '--json']);
    assert.equal(retried.code, 0, retried.stderr);
    assert.deepEqual(JSON.parse(retried.stdout), { id: cleanupId, state: 'queued' });
    refused(await certdesk(['jobs', 'retry', String(cleanupId)]), new RegExp(`^certdesk: job ${cleanupId} does not exist or has not failed`));
    refused(await certdesk(['jobs', 'retry', 'seven']), /^certdesk: job id must be a number, got "seven"\n$/);
    const queued = JSON.parse((await certdesk(['jobs', 'list', '--json'])).stdout) as Array<{ id: number; state: string; attempts: number }>;
    assert.deepEqual(queued.find((j) => j.id === cleanupId), { ...queued.find((j) => j.id === cleanupId), state: 'queued', attempts: 0 });

    // orders reanalyse: refused for a permanent cause, for another state, for an unknown order.
    refused(await certdesk(['orders', 'reanalyse', permanentOrder]), new RegExp(`^certdesk: order ${permanentOrder} failed for a permanent cause \\(file_type: PermanentJobError: truncated PNG\\): re-analysing cannot change it\\n$`));
    refused(await certdesk(['orders', 'reanalyse', 'small-0002']), /^certdesk: order small-0002 is Action Required, not Failed: only an order whose analysis failed for a transient cause can be re-analysed\n$/);
    refused(await certdesk(['orders', 'reanalyse', 'no-such-order']), /^certdesk: order no-such-order does not exist\n$/);

    const again = await certdesk(['orders', 'reanalyse', transientOrder, '--json']);
    assert.equal(again.code, 0, again.stderr);
    const result = JSON.parse(again.stdout) as { order_id: string; job_id: number; check: string };
    assert.equal(result.order_id, transientOrder);
    refused(await certdesk(['orders', 'reanalyse', transientOrder]), /is In Progress, not Failed/);

    await scratch.withDatabase(async (h) => {
      assert.equal((await readOrder(h.db, transientOrder))?.order_state, 'In Progress');
      const events = await listOrderEvents(h.db, transientOrder);
      const moves = events.filter((e) => e.from_state !== null).map((e) => [e.from_state, e.to_state, e.actor_kind, e.actor_id]);
      assert.deepEqual(moves.slice(-2), [
        ['In Progress', 'Failed', 'system', 'analysis'],
        ['Failed', 'In Progress', 'system', 'operator'],
      ]);
      assert.match(events.at(-1)!.note!, /^re-analysis after a transient failure of \w+: Error: detection service refused the connection/);
    });
    const jobs = JSON.parse((await certdesk(['jobs', 'list', '--json'])).stdout) as Array<{ id: number; kind: string; state: string; payload: { order_id?: string } }>;
    assert.deepEqual(jobs.filter((j) => j.payload.order_id === transientOrder).map((j) => [j.id, j.state]), [[failed[0]!.id, 'failed'], [result.job_id, 'queued']]);
  });
});
