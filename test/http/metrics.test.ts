/**
 * /metrics: Prometheus text with requests by route pattern (never the raw URL) and status, token
 * outcomes, rate-limit refusals, database figures and the job queue (gauges read at scrape, attempts and
 * durations recorded by the worker); off when disabled; behind a bearer token when
 * METRICS_TOKEN is set.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { buildTestApp } from '../helpers/app.js';
import type { DatabaseHandle } from '../../src/storage/database.js';
import { openTestPglite } from '../helpers/database.js';
import { ACME, loadStandardFixture, temporaryObjectStorage, USERS, removeTemporaryObjectStorages } from '../helpers/fixtures.js';
import { apiTestConfig, obtainToken } from './api-harness.js';
import { sql } from 'kysely';
import { buildServer } from '../../src/app/http-server.js';
import { createServices } from '../../src/app/services.js';
import { ANALYZE_ORDER_JOB, CLEANUP_JOB } from '../../src/domain/background/job-kinds.js';
import { enqueueJob } from '../../src/jobs/job-queue.js';
import { createServiceMetrics } from '../../src/metrics/service-metrics.js';

const METRICS_TOKEN = 'scraper-token-0123456789';

describe('/metrics', () => {
  let database: DatabaseHandle;
  let dir: string;
  const apps: FastifyInstance[] = [];
  const build = async (overrides: Partial<ReturnType<typeof apiTestConfig>>) => {
    const app = await buildTestApp({ config: { ...apiTestConfig(dir), ...overrides }, database });
    apps.push(app);
    return app;
  };

  before(async () => {
    database = await openTestPglite();
    const objects = temporaryObjectStorage();
    dir = objects.dir;
    await loadStandardFixture(database, objects.storage);
  });
  after(async () => {
    for (const app of apps) await app.close();
    await database.close();
  });

  it('counts requests by route pattern and status, token outcomes and limiter refusals', async () => {
    const app = await build({});
    const token = await obtainToken(app, USERS.admin.clientId, USERS.admin.clientSecret);
    await app.inject({ url: `/v1/projects/${ACME.projects.zeta.id}`, headers: { authorization: `Bearer ${token}` } });
    await app.inject({ url: '/v1/projects/not-a-uuid', headers: { authorization: `Bearer ${token}` } });
    const refused = await app.inject({
      method: 'POST',
      url: '/oauth2/token',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'grant_type=client_credentials&client_id=nobody&client_secret=wrong',
    });
    assert.equal(refused.statusCode, 401);
    const res = await app.inject({ url: '/metrics' });
    assert.equal(res.statusCode, 200);
    assert.match(res.headers['content-type'] as string, /^text\/plain; version=0\.0\.4/);
    const body = res.body;
    assert.match(body, /certdesk_http_requests_total\{method="GET",route="\/v1\/projects\/:project_id",status="200"\} 1/);
    assert.match(body, /certdesk_http_request_duration_seconds_bucket\{le="0\.005",method="POST",route="\/oauth2\/token",status="200"\}/);
    assert.doesNotMatch(body, /not-a-uuid|0a0a0a0a-/, 'raw URLs and ids never become labels');
    assert.match(body, /certdesk_oauth_tokens_issued_total 1/);
    assert.match(body, /certdesk_oauth_tokens_refused_total\{error="invalid_client"\} 1/);
    assert.match(body, /certdesk_db_up 1/);
    assert.match(body, /certdesk_db_errors_total\{kind="unavailable"\} 0/);
  });

  it('counts a 429 as a refusal of the limiter behind the route', async () => {
    const app = await build({});
    let last = 0;
    for (let i = 0; i < 12 && last !== 429; i++) {
      const res = await app.inject({
        method: 'POST',
        url: '/oauth2/token',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload: `grant_type=client_credentials&client_id=${USERS.viewer.clientId}&client_secret=wrong-${i}`,
      });
      last = res.statusCode;
    }
    assert.equal(last, 429);
    const body = (await app.inject({ url: '/metrics' })).body;
    assert.match(body, /certdesk_rate_limit_refusals_total\{limiter="token"\} [1-9]/);
  });

  it('is absent when disabled (the production default)', async () => {
    const app = await build({ metricsEnabled: false });
    assert.equal((await app.inject({ url: '/metrics' })).statusCode, 404);
  });

  it('answers only the configured bearer token when METRICS_TOKEN is set', async () => {
    const app = await build({ metricsToken: METRICS_TOKEN });
    const anonymous = await app.inject({ url: '/metrics' });
    assert.equal(anonymous.statusCode, 401);
    assert.equal(anonymous.headers['www-authenticate'], 'Bearer realm="metrics"');
    assert.equal((await app.inject({ url: '/metrics', headers: { authorization: 'Bearer wrong-token' } })).statusCode, 401);
    assert.equal((await app.inject({ url: '/metrics', headers: { authorization: `Bearer ${METRICS_TOKEN}` } })).statusCode, 200);
  });

  it('shows the job queue: jobs waiting, scheduled, running and failed by kind, read at scrape; attempts and durations by outcome', async () => {
    const services = await createServices({ config: { ...apiTestConfig(dir), metricsEnabled: true }, database, metrics: createServiceMetrics({ processMetrics: false }) });
    const app = await buildServer(services);
    apps.push(app);
    app.addHook('onClose', () => services.close());
    await sql`DELETE FROM jobs`.execute(database.db);
    // One attempt through the real worker: the analysis of an order that no longer exists is done at once.
    await enqueueJob(database.db, ANALYZE_ORDER_JOB, { order_id: 'gone' });
    assert.equal(await services.jobs.worker.runDue(), 1);
    for (let i = 0; i < 3; i++) await enqueueJob(database.db, ANALYZE_ORDER_JOB, { order_id: `w${i}` });
    await enqueueJob(database.db, ANALYZE_ORDER_JOB, { order_id: 'later' }, { delayMs: 3_600_000 });
    const running = await enqueueJob(database.db, CLEANUP_JOB, {});
    const failed = await enqueueJob(database.db, ANALYZE_ORDER_JOB, { order_id: 'f' });
    await sql`UPDATE jobs SET state = 'running', locked_by = 'w', locked_until = now() + interval '1 minute' WHERE id = ${running}`.execute(database.db);
    await sql`UPDATE jobs SET state = 'failed', finished_at = now(), failure_kind = 'transient' WHERE id = ${failed}`.execute(database.db);
    const body = (await app.inject({ url: '/metrics' })).body;
    const value = (name: string, labels: string) => body.match(new RegExp(`^${name}\\{${labels}\\} (\\S+)$`, 'm'))?.[1];
    assert.equal(value('certdesk_jobs', 'kind="analyze_order",state="waiting"'), '3');
    assert.equal(value('certdesk_jobs', 'kind="analyze_order",state="scheduled"'), '1');
    assert.equal(value('certdesk_jobs', 'kind="analyze_order",state="running"'), '0');
    assert.equal(value('certdesk_jobs', 'kind="analyze_order",state="failed"'), '1');
    assert.equal(value('certdesk_jobs', 'kind="cleanup",state="running"'), '1');
    assert.equal(value('certdesk_jobs', 'kind="cleanup",state="waiting"'), '0');
    assert.equal(value('certdesk_job_attempts_total', 'kind="analyze_order",outcome="done"'), '1');
    assert.equal(value('certdesk_job_duration_seconds_count', 'kind="analyze_order",outcome="done"'), '1');
    assert.match(body, /certdesk_job_duration_seconds_bucket\{le="300",kind="analyze_order",outcome="done"\} 1/);
    await sql`DELETE FROM jobs`.execute(database.db);
  });

  it('samples stored order documents against the renderer at each scrape: 0 drifted, until one is changed behind its back', async () => {
    const services = await createServices({ config: { ...apiTestConfig(dir), metricsEnabled: true }, database, metrics: createServiceMetrics({ processMetrics: false }) });
    const app = await buildServer(services);
    apps.push(app);
    app.addHook('onClose', () => services.close());
    const scrape = async () => {
      const body = (await app.inject({ url: '/metrics' })).body;
      const value = (figure: string) => Number(body.match(new RegExp(`^certdesk_order_documents_drifted\\{figure="${figure}"\\} (\\S+)$`, 'm'))?.[1]);
      return { sampled: value('sampled'), drifted: value('drifted') };
    };
    const orders = (await database.db.selectFrom('orders').select(sql<number>`count(*)::int`.as('n')).executeTakeFirstOrThrow()).n;
    assert.ok(orders > 0 && orders <= 50, `the fixture's ${orders} orders fit in one sample`);
    assert.deepEqual(await scrape(), { sampled: orders, drifted: 0 });
    const { order_id: id, doc } = await database.db.selectFrom('orders').select(['order_id', sql<string>`doc::text`.as('doc')]).orderBy('order_id').executeTakeFirstOrThrow();
    await sql`UPDATE orders SET doc = jsonb_set(doc::jsonb, '{tags}', '["by hand"]')::json WHERE order_id = ${id}`.execute(database.db);
    try {
      assert.deepEqual(await scrape(), { sampled: orders, drifted: 1 });
    } finally {
      await sql`UPDATE orders SET doc = ${doc}::json WHERE order_id = ${id}`.execute(database.db);
    }
    assert.deepEqual(await scrape(), { sampled: orders, drifted: 0 });
  });
});

// The temporary object storage folders this file made (test/helpers/fixtures.ts).
after(removeTemporaryObjectStorages);
