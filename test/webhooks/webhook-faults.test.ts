/**
 * Webhooks against bad receivers and bad input (issue 20), through the real application and the batched
 * delivery loop `serve` runs (JobRuntime.deliveries): the webhook metrics of /metrics; a 1 GiB answer cut
 * at the excerpt without reading it; loopback and metadata addresses refused when private addresses are
 * not allowed (at save, and at connect time when a saved address changes); an endpoint deleted while
 * its deliveries are pending; other organizations, editors and viewers kept away from endpoints.
 * (Hanging, 500, redirecting and 410 receivers: webhooks.test.ts; a serve restart and a database outage
 * in the middle of deliveries: test/faults/webhook-delivery-faults.test.ts.)
 */
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { sql } from 'kysely';
import { SCOPES } from '../../src/contract/schemas.js';
import { upsertProvisionedClient } from '../../src/domain/api-clients/api-client-provisioning.repository.js';
import { RESPONSE_EXCERPT_BYTES } from '../../src/integrations/webhook-sender/webhook-sender.js';
import { createOrderWithAsset } from '../helpers/certificates.js';
import { buildTestApp } from '../helpers/app.js';
import { describeOnEachDatabase } from '../helpers/database.js';
import { GLOBEX, USERS } from '../helpers/fixtures.js';
import { pngBytes } from '../helpers/images.js';
import { apiTestConfig, obtainToken, type Api } from '../http/api-harness.js';
import type { Receiver } from './receiver.js';
import { startWebhookTestApi, type WebhookTestApi } from './webhook-harness.js';

describeOnEachDatabase('webhook faults', (getDb) => {
  let api: Api & { dir: string };
  let receiver: Receiver;
  let started: WebhookTestApi;

  before(async () => {
    started = await startWebhookTestApi(getDb());
    ({ api, receiver } = started);
  });
  after(async () => {
    await started?.close();
  });

  const call = (method: 'POST' | 'GET' | 'PATCH' | 'DELETE', url: string, as: keyof Api['tokens'], payload?: unknown) =>
    api.app.inject({ method, url, headers: { authorization: `Bearer ${api.tokens[as]}` }, ...(payload === undefined ? {} : { payload: payload as object }) });

  async function createEndpoint(path: string): Promise<{ id: string }> {
    const res = await call('POST', '/v1/webhook-endpoints', 'admin', { url: receiver.url(path), events: ['order.created'] });
    assert.equal(res.statusCode, 201, res.body);
    return res.json() as { id: string };
  }

  /** Runs due deliveries through the batched loop until `done` holds (30 s of real time: the machine may be loaded). */
  async function until(done: () => Promise<boolean> | boolean, what: string, runner = api.app.services.jobs.deliveries!): Promise<void> {
    const deadline = Date.now() + 30_000;
    while (!(await done())) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
      if ((await runner.runDue()) === 0) await new Promise((r) => setTimeout(r, 10));
    }
  }

  const deliveryOf = async (endpointId: string) =>
    (await sql<{ status: string; attempts: number; response_status: number | null; response_excerpt: string | null }>`
      SELECT status, attempts, response_status, response_excerpt FROM webhook_deliveries WHERE endpoint_id = ${endpointId}::uuid`.execute(api.database.db)).rows[0];
  const metrics = async () => {
    const body = (await api.app.inject({ url: '/metrics' })).body;
    return (name: string, labels = '') => Number(body.match(new RegExp(`^${name}${labels ? `\\{${labels}\\}` : ''} (\\S+)$`, 'm'))?.[1] ?? NaN);
  };
  const to = (path: string) => receiver.received.filter((r) => r.path === path);

  it('counts deliveries by outcome with their latency, the pending backlog, disabled endpoints and dropped deliveries in /metrics', async () => {
    const before = await metrics();
    const ok = await createEndpoint('/ok?metrics');
    const failing = await createEndpoint('/fail?metrics');
    const gone = await createEndpoint('/gone?metrics');
    await createOrderWithAsset(api.app, api.tokens.admin, pngBytes());
    await until(async () => (await deliveryOf(ok.id))?.status === 'succeeded' && (await deliveryOf(gone.id))?.status === 'failed' && ((await deliveryOf(failing.id))?.attempts ?? 0) >= 1, 'the three outcomes');
    const after = await metrics();
    const grew = (name: string, labels: string) => after(name, labels) - (before(name, labels) || 0);
    assert.ok(grew('certdesk_webhook_deliveries_total', 'outcome="success"') >= 1);
    assert.ok(grew('certdesk_webhook_deliveries_total', 'outcome="failure"') >= 1);
    assert.ok(grew('certdesk_webhook_deliveries_total', 'outcome="disabled"') >= 1);
    assert.ok(grew('certdesk_webhook_delivery_duration_seconds_count', 'outcome="success"') >= 1);
    // The failing endpoint's delivery is pending (due or waiting for its backoff), and the 410 disabled its endpoint.
    assert.ok(after('certdesk_webhook_deliveries_pending', 'state="due"') + after('certdesk_webhook_deliveries_pending', 'state="scheduled"') >= 1);
    assert.ok(after('certdesk_webhook_endpoints_disabled') >= 1);

    // An endpoint deleted while its delivery is pending: the delivery goes with it, is never sent, and is counted as dropped.
    await call('DELETE', `/v1/webhook-endpoints/${failing.id}`, 'admin');
    const deleted = await createEndpoint('/ok?deleted');
    await createOrderWithAsset(api.app, api.tokens.admin, pngBytes());
    const pendingJobs = await sql<{ n: string }>`SELECT count(*) AS n FROM jobs WHERE kind = 'deliver_webhook' AND state = 'queued'`.execute(api.database.db);
    assert.ok(Number(pendingJobs.rows[0]!.n) >= 1);
    assert.equal((await call('DELETE', `/v1/webhook-endpoints/${deleted.id}`, 'admin')).statusCode, 204);
    await until(async () => (await api.app.services.jobs.deliveries!.runDue()) === 0, 'the queue to drain');
    assert.equal(to('/ok?deleted').length, 0);
    assert.ok((await metrics())('certdesk_webhook_deliveries_dropped_total', 'reason="endpoint_deleted"') >= 1);
    for (const e of [ok, gone]) await call('DELETE', `/v1/webhook-endpoints/${e.id}`, 'admin');
  });

  it('reads at most the excerpt of a 1 GiB answer and drops the connection', async () => {
    const huge = await createEndpoint('/gigabyte');
    await createOrderWithAsset(api.app, api.tokens.admin, pngBytes());
    await until(async () => (await deliveryOf(huge.id))?.status === 'succeeded', 'the 1 GiB answer');
    const delivery = (await deliveryOf(huge.id))!;
    assert.equal(delivery.response_status, 200);
    assert.ok(delivery.response_excerpt!.length <= RESPONSE_EXCERPT_BYTES);
    assert.match(delivery.response_excerpt!, /^y+$/);
    // The receiver could write what the socket buffers held before the sender hung up: megabytes, not a gigabyte.
    await until(() => receiver.bytesSent.has('/gigabyte'), 'the receiver to start writing');
    assert.ok(receiver.bytesSent.get('/gigabyte')! < 64 * 2 ** 20, `the receiver wrote ${receiver.bytesSent.get('/gigabyte')} bytes`);
    await call('DELETE', `/v1/webhook-endpoints/${huge.id}`, 'admin');
  });

  it('refuses loopback and metadata targets without WEBHOOK_ALLOW_PRIVATE: 422 when saved, a failed delivery when a saved address changes', async () => {
    // A second application on the same database, with the guard on (the configuration's default).
    const strict = await buildTestApp({ config: apiTestConfig(api.dir), database: api.database, webhooks: { timeoutMs: 2000 } });
    try {
      await strict.ready();
      const token = await obtainToken(strict, USERS.admin.clientId, USERS.admin.clientSecret);
      const port = new URL(receiver.url('/')).port;
      for (const url of [`https://localhost:${port}/ok`, 'https://169.254.169.254/latest/meta-data', `http://127.0.0.1:${port}/ok`]) {
        const res = await strict.inject({ method: 'POST', url: '/v1/webhook-endpoints', headers: { authorization: `Bearer ${token}` }, payload: { url, events: ['order.created'] } });
        assert.equal(res.statusCode, 422, url);
        assert.deepEqual((res.json() as { detail: Array<{ loc: unknown[] }> }).detail[0]!.loc, ['body', 'url'], url);
      }
      // Saved while it pointed elsewhere, then the name resolves to loopback (DNS rebinding) or the address is the metadata service.
      const rebound = await createEndpoint('/ok?rebound');
      const metadata = await createEndpoint('/ok?metadata');
      await sql`UPDATE webhook_endpoints SET url = ${`https://localhost:${port}/ok?rebound`} WHERE id = ${rebound.id}::uuid`.execute(api.database.db);
      await sql`UPDATE webhook_endpoints SET url = 'https://169.254.169.254/latest/meta-data' WHERE id = ${metadata.id}::uuid`.execute(api.database.db);
      await createOrderWithAsset(api.app, api.tokens.admin, pngBytes());
      const runner = strict.services.jobs.deliveries!;
      await until(async () => ((await deliveryOf(rebound.id))?.attempts ?? 0) >= 1 && ((await deliveryOf(metadata.id))?.attempts ?? 0) >= 1, 'both attempts', runner);
      for (const id of [rebound.id, metadata.id]) {
        const d = (await deliveryOf(id))!;
        assert.equal(d.status, 'pending', 'a failure, tried again later');
        assert.equal(d.response_status, null);
        assert.match(d.response_excerpt!, /public addresses/);
      }
      assert.equal(to('/ok?rebound').length, 0);
      for (const e of [rebound, metadata]) await call('DELETE', `/v1/webhook-endpoints/${e.id}`, 'admin');
    } finally {
      await strict.close();
    }
  });

  it('lets no other organization see or change an endpoint (404) and no editor or viewer manage one (403)', async () => {
    const endpoint = await createEndpoint('/ok?access');
    await createOrderWithAsset(api.app, api.tokens.admin, pngBytes());
    await until(async () => (await deliveryOf(endpoint.id))?.status === 'succeeded', 'the delivery');
    const deliveryId = (await sql<{ id: string }>`SELECT id::text AS id FROM webhook_deliveries WHERE endpoint_id = ${endpoint.id}::uuid`.execute(api.database.db)).rows[0]!.id;
    const base = `/v1/webhook-endpoints/${endpoint.id}`;
    const attempts: Array<['GET' | 'PATCH' | 'DELETE' | 'POST', string, unknown?]> = [
      ['GET', base],
      ['PATCH', base, { description: 'taken over', url: 'http://attacker.example/hook' }],
      ['POST', `${base}/rotate-secret`],
      ['GET', `${base}/deliveries`],
      ['POST', `${base}/deliveries/${deliveryId}/retry`],
      ['DELETE', base],
    ];
    // Globex's administrator, through a client of theirs with the write scope: Acme's endpoint does not exist for them.
    const globexUser = await api.database.db.selectFrom('users').select('id').where('email', '=', USERS.other.email).executeTakeFirstOrThrow();
    const clientId = `globex-writer-${Date.now()}`;
    await upsertProvisionedClient(api.database.db, { client_id: clientId, client_secret: 'globex-writer-secret-0123456789', organization_id: GLOBEX.id, user_id: String(globexUser.id), name: 'Globex writer', scopes: [SCOPES.read, SCOPES.write] });
    const globexAdmin = await obtainToken(api.app, clientId, 'globex-writer-secret-0123456789', `${SCOPES.read} ${SCOPES.write}`);
    for (const [method, url, payload] of attempts) {
      const res = await api.app.inject({ method, url, headers: { authorization: `Bearer ${globexAdmin}` }, ...(payload === undefined ? {} : { payload: payload as object }) });
      assert.equal(res.statusCode, 404, `other organization: ${method} ${url}`);
      for (const user of ['editor', 'viewer'] as const) assert.equal((await call(method, url, user, payload)).statusCode, 403, `${user}: ${method} ${url}`);
    }
    // Nothing changed: same URL and description, still enabled, one delivery.
    const after = (await call('GET', base, 'admin')).json() as Record<string, unknown>;
    assert.equal(after.url, receiver.url('/ok?access'));
    assert.equal(after.description, null);
    assert.equal(after.status, 'enabled');
    assert.equal(to('/ok?access').length, 1);
    await call('DELETE', base, 'admin');
  });
});
