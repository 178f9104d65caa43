/**
 * A two-minute detection service outage: the service refuses every connection for 120 s of real time while
 * orders are created; once it listens again, every order is analysed (none `Failed`). The queue's real
 * polling loop runs with the retry schedule shortened through the configuration (JOB_RETRY_BASE_MS=500,
 * JOB_RETRY_CAP_MS=30000: the 25 attempts of an analysis then span about 5 minutes on average instead of
 * days). PGlite and PostgreSQL run at the same time, so the suite costs about 2.5 minutes, not 5.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { SCOPES, type OrderT } from '../../src/contract/schemas.js';
import { loadConfig } from '../../src/config.js';
import { createClient } from '../../src/domain/api-clients/client-admin.js';
import { ANALYZE_ORDER_JOB } from '../../src/domain/background/job-kinds.js';
import { HttpDetectionService } from '../../src/integrations/detection-service/index.js';
import { findJobs } from '../../src/jobs/job.repository.js';
import { jobHandlers } from '../../src/jobs/job-runtime.js';
import { Worker } from '../../src/jobs/worker.js';
import { LocalDirectoryStorage } from '../../src/storage/object-storage/index.js';
import { flatImage } from '../helpers/analysis-files.js';
import { databaseTargets } from '../helpers/database.js';
import { startDetectionServer, type DetectionServer } from '../helpers/detection-server.js';
import { ACME, USERS } from '../helpers/fixtures.js';
import { obtainToken, startApi, type Api } from '../http/api-harness.js';

const OUTAGE_MS = 120_000;
const ORDERS = 6;
const ALL_CHECKS = ['file_type', 'metadata', 'layer_check', 'ai_detection'];

/** Waits (polling) until `done()` or the deadline; returns whether it happened. */
async function until(done: () => Promise<boolean> | boolean, deadlineMs: number): Promise<boolean> {
  const end = Date.now() + deadlineMs;
  while (Date.now() < end) {
    if (await done()) return true;
    await new Promise((r) => setTimeout(r, 250));
  }
  return done();
}

describe('a 120 s detection service outage', { concurrency: true }, () => {
  for (const target of databaseTargets()) {
    describe(`on ${target.name}`, () => {
      let api: Api & { dir: string };
      let detector: DetectionServer;
      let worker: Worker;
      let token: string;
      const errors: unknown[] = [];

      before(async () => {
        api = await startApi(target);
        detector = await startDetectionServer();
        const c = await createClient(api.database.db, { organizationId: ACME.id, userEmail: USERS.editor.email, scopes: [SCOPES.read, SCOPES.write] });
        token = await obtainToken(api.app, c.client_id, c.client_secret);
        // The retry schedule comes from the settings, as `serve` reads them.
        const config = loadConfig({ JOB_RETRY_BASE_MS: '500', JOB_RETRY_CAP_MS: '30000' });
        const detection = new HttpDetectionService({ url: detector.url, key: detector.key, timeoutMs: 5000, maxRequestBytes: 5 * 1024 * 1024 });
        worker = new Worker({
          db: api.database.db,
          concurrency: 2,
          pollMs: 200,
          retry: { baseMs: config.jobRetryBaseMs, capMs: config.jobRetryCapMs },
          handlers: jobHandlers({ db: api.database.db, clock: { now: () => new Date() }, storage: new LocalDirectoryStorage(api.dir), detection, concurrency: 2 }),
          onError: (err) => errors.push(err),
        });
        worker.start();
      });
      after(async () => {
        await worker?.stop(5000);
        await detector?.close();
        await api?.close();
      });

      async function order(bytes: Buffer, name: string): Promise<string> {
        const auth = { authorization: `Bearer ${token}` };
        const ticket = await api.app.inject({ method: 'POST', url: '/v1/uploads', headers: auth, payload: { file_name: name, content_type: 'image/png', size: bytes.length } });
        assert.equal(ticket.statusCode, 201, ticket.body);
        const { upload_url, upload_headers, upload_id } = ticket.json() as { upload_url: string; upload_headers: Record<string, string>; upload_id: string };
        const put = await api.app.inject({ method: 'PUT', url: upload_url.replace('https://api.certdesk.test', ''), headers: upload_headers, payload: bytes });
        assert.equal(put.statusCode, 200, put.body);
        const created = await api.app.inject({ method: 'POST', url: '/v1/orders', headers: auth, payload: { upload_id, project_id: ACME.projects.zeta.id, order_title: name } });
        assert.equal(created.statusCode, 201, created.body);
        return (created.json() as OrderT).order_id;
      }

      const state = async (id: string) => {
        const o = (await api.get(`/v1/orders/${id}`, 'editor')).json() as OrderT;
        return { state: o.order_state, checks: (o.analysis_list ?? []).map((l) => `${l.analysis_type}:${l.analysis_passed}`) };
      };

      it('leaves every order created during the outage analysed once the service returns', { timeout: 10 * 60_000 }, async () => {
        await detector.refuse();
        const outageEnds = Date.now() + OUTAGE_MS;
        const ids: string[] = [];
        // Orders arrive through the outage: at its start and spread over it.
        for (let i = 0; i < ORDERS; i++) {
          ids.push(await order(await flatImage('png', 24 + i, 24, '#3366aa'), `outage-${i}.png`));
          const next = outageEnds - OUTAGE_MS + ((i + 1) * OUTAGE_MS) / (ORDERS + 1);
          await until(() => Date.now() >= next, OUTAGE_MS);
        }
        await until(() => Date.now() >= outageEnds, OUTAGE_MS + 5000);
        // During the outage: no order analysed past its earlier checks, none Failed, the jobs retried.
        for (const id of ids) assert.equal((await state(id)).state, 'In Progress', `order ${id} during the outage`);
        const retried = await findJobs(api.database.db, { kind: ANALYZE_ORDER_JOB });
        assert.ok(retried.some((j) => j.attempts > 1 && /unreachable|ECONNREFUSED/i.test(j.last_error ?? '')), JSON.stringify(retried.map((j) => [j.state, j.attempts, j.last_error])));
        assert.equal(detector.requests.length, 0, 'nothing reached the service');
        await detector.accept();

        const settled = await until(async () => (await findJobs(api.database.db, { kind: ANALYZE_ORDER_JOB })).every((j) => j.state === 'done'), 180_000);
        const jobs = await findJobs(api.database.db, { kind: ANALYZE_ORDER_JOB });
        assert.ok(settled, `jobs still unfinished: ${JSON.stringify(jobs.map((j) => [j.state, j.attempts, j.last_error]))}`);
        for (const id of ids) {
          const s = await state(id);
          assert.equal(s.state, 'In Progress', `order ${id} waits for a reviewer, analysed`);
          assert.deepEqual(s.checks, ALL_CHECKS.map((c) => `${c}:true`));
        }
        assert.ok(detector.requests.length >= ORDERS);
        assert.ok(Math.max(...jobs.map((j) => j.attempts)) > 2, 'the outage cost retries');
      });
    });
  }
});
