/**
 * /metrics: Prometheus text with requests by route pattern (never the raw URL) and status, token
 * outcomes, rate-limit refusals and database figures; off when disabled; behind a bearer token when
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
});

// The temporary object storage folders this file made (test/helpers/fixtures.ts).
after(removeTemporaryObjectStorages);
