/**
 * Webhooks through the real application (DECISIONS 10): endpoints API and its access rules, events written
 * to the outbox in the transaction of the change, and deliveries to a real local receiver (private addresses
 * allowed for the test), each verified with the `standardwebhooks` package's own verifier; failures: 500
 * retried, 410 disables, a redirect is a failure, a hanging receiver times out, an endless body is cut,
 * three days of failures disable.
 */
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { sql } from 'kysely';
import { Webhook } from 'standardwebhooks';
import { revokeCertificateNow } from '../../src/domain/certificates/index.js';
import { changeOrderIn } from '../../src/domain/orders/order-lifecycle.service.js';
import { PER_ENDPOINT_CONCURRENCY } from '../../src/domain/webhooks/delivery.js';
import { deleteSettledWebhookEvents } from '../../src/domain/webhooks/webhook.repository.js';
import { WEBHOOK_EVENT_RETENTION_MS } from '../../src/domain/intake/cleanup.js';
import { certifyOrder, createOrderWithAsset, TEST_REVIEWER } from '../helpers/certificates.js';
import { describeOnEachDatabase } from '../helpers/database.js';
import { ACME } from '../helpers/fixtures.js';
import { pngBytes } from '../helpers/images.js';
import type { Api } from '../http/api-harness.js';
import type { Receiver, ReceivedRequest } from './receiver.js';
import { startWebhookTestApi, type WebhookTestApi } from './webhook-harness.js';

const ALL_EVENTS = ['order.created', 'order.state_changed', 'certificate.issued', 'certificate.revoked'];
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

describeOnEachDatabase('webhooks', (getDb) => {
  let api: Api;
  let receiver: Receiver;
  let started: WebhookTestApi;

  before(async () => {
    // More worker slots than the per-endpoint bound, so that bound is what holds a slow endpoint back.
    started = await startWebhookTestApi(getDb(), { WORKER_CONCURRENCY: '10' });
    ({ api, receiver } = started);
  });
  after(async () => {
    await started?.close();
  });

  const call = (method: 'POST' | 'GET' | 'PATCH' | 'DELETE', url: string, as: keyof Api['tokens'], payload?: unknown) =>
    api.app.inject({ method, url, headers: { authorization: `Bearer ${api.tokens[as]}` }, ...(payload === undefined ? {} : { payload: payload as object }) });

  async function createEndpoint(path: string, events = ALL_EVENTS): Promise<{ id: string; secret: string }> {
    const res = await call('POST', '/v1/webhook-endpoints', 'admin', { url: receiver.url(path), events, description: `receiver ${path}` });
    assert.equal(res.statusCode, 201, res.body);
    return res.json() as { id: string; secret: string };
  }

  /** Runs due jobs until `done` holds (deadline 30 s of real time: the machine may be loaded). */
  async function until(done: () => Promise<boolean> | boolean, what: string): Promise<void> {
    const deadline = Date.now() + 30_000;
    while (!(await done())) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
      const ran = await api.app.services.jobs.worker.runDue();
      if (ran === 0) await new Promise((r) => setTimeout(r, 10));
    }
  }

  const deliveriesOf = async (id: string) => (await call('GET', `/v1/webhook-endpoints/${id}/deliveries`, 'admin')).json() as { deliveries: Array<Record<string, unknown>>; next_page_token: string | null };
  const endpointOf = async (id: string) => (await call('GET', `/v1/webhook-endpoints/${id}`, 'admin')).json() as Record<string, unknown>;
  const operationId = (path: string, method: string) =>
    ((api.openapi.document as { paths: Record<string, Record<string, { operationId: string }>> }).paths[path]![method]!).operationId;
  const to = (path: string) => receiver.received.filter((r) => r.path === path);
  const typeOf = (r: ReceivedRequest) => (JSON.parse(r.body) as { type: string }).type;

  it('creates, lists, reads, edits and deletes endpoints; the secret is shown once', async () => {
    const res = await call('POST', '/v1/webhook-endpoints', 'admin', { url: receiver.url('/crud'), events: ['order.created'] });
    assert.equal(res.statusCode, 201, res.body);
    api.openapi.assertResponse(operationId('/v1/webhook-endpoints', 'post'), res.statusCode, res.json());
    const created = res.json() as Record<string, unknown>;
    assert.deepEqual(Object.keys(created).sort(), ['created_at', 'description', 'disabled_reason', 'events', 'id', 'secret', 'status', 'url']);
    assert.match(created.id as string, UUID);
    assert.match(created.secret as string, /^whsec_[A-Za-z0-9+/]{43}=$/);
    assert.equal(created.status, 'enabled');
    const id = created.id as string;

    const list = await call('GET', '/v1/webhook-endpoints', 'admin');
    assert.equal(list.statusCode, 200);
    const listed = (list.json() as { webhook_endpoints: Array<Record<string, unknown>> }).webhook_endpoints.find((e) => e.id === id);
    assert.ok(listed && !('secret' in listed));

    const patched = await call('PATCH', `/v1/webhook-endpoints/${id}`, 'admin', { events: ['order.created', 'certificate.issued'], description: 'edited', status: 'disabled' });
    assert.equal(patched.statusCode, 200, patched.body);
    assert.deepEqual((patched.json() as Record<string, unknown>).events, ['order.created', 'certificate.issued']);
    assert.equal((patched.json() as Record<string, unknown>).status, 'disabled');

    const rotated = await call('POST', `/v1/webhook-endpoints/${id}/rotate-secret`, 'admin');
    assert.equal(rotated.statusCode, 200);
    assert.notEqual((rotated.json() as { secret: string }).secret, created.secret);

    assert.equal((await call('DELETE', `/v1/webhook-endpoints/${id}`, 'admin')).statusCode, 204);
    assert.equal((await call('GET', `/v1/webhook-endpoints/${id}`, 'admin')).statusCode, 404);
  });

  it('refuses unknown events and URLs with credentials (422), non-administrators (403), other organizations (404)', async () => {
    const unknown = await call('POST', '/v1/webhook-endpoints', 'admin', { url: receiver.url('/ok'), events: ['order.deleted'] });
    assert.equal(unknown.statusCode, 422);
    assert.deepEqual((unknown.json() as { detail: Array<{ loc: unknown[] }> }).detail[0]!.loc.slice(0, 2), ['body', 'events']);
    const credentials = await call('POST', '/v1/webhook-endpoints', 'admin', { url: receiver.url('/ok').replace('http://', 'http://user:pw@'), events: ['order.created'] });
    assert.equal(credentials.statusCode, 422);
    assert.deepEqual((credentials.json() as { detail: Array<{ loc: unknown[] }> }).detail[0]!.loc, ['body', 'url']);
    const notUrl = await call('POST', '/v1/webhook-endpoints', 'admin', { url: 'ftp://example.com/x', events: ['order.created'] });
    assert.equal(notUrl.statusCode, 422);

    const { id } = await createEndpoint('/access', ['order.created']);
    for (const user of ['editor', 'viewer'] as const) {
      assert.equal((await call('GET', '/v1/webhook-endpoints', user)).statusCode, 403, user);
      assert.equal((await call('GET', `/v1/webhook-endpoints/${id}`, user)).statusCode, 403, user);
      // Their clients have no write scope: 403 too.
      assert.equal((await call('POST', '/v1/webhook-endpoints', user, { url: receiver.url('/ok'), events: ['order.created'] })).statusCode, 403, user);
    }
    // Globex's administrator: Acme's endpoint does not exist for them.
    assert.equal((await call('GET', `/v1/webhook-endpoints/${id}`, 'other')).statusCode, 404);
    assert.equal((await call('GET', `/v1/webhook-endpoints/${id}/deliveries`, 'other')).statusCode, 404);
    const theirs = await call('GET', '/v1/webhook-endpoints', 'other');
    assert.deepEqual((theirs.json() as { webhook_endpoints: unknown[] }).webhook_endpoints, []);
    assert.equal((await call('GET', '/v1/webhook-endpoints/not-a-uuid', 'admin')).statusCode, 404);
    assert.equal((await call('DELETE', `/v1/webhook-endpoints/${id}`, 'admin')).statusCode, 204);
  });

  it('delivers order.created, order.state_changed, certificate.issued and certificate.revoked, signed per Standard Webhooks', async () => {
    const { id, secret } = await createEndpoint('/ok');
    const second = await createEndpoint('/ok', ['order.created']);
    const orderId = await createOrderWithAsset(api.app, api.tokens.admin, pngBytes());
    const certificate = await certifyOrder(api.app, orderId);
    await revokeCertificateNow(api.database.db, api.app.services.clock, certificate.certificate_id, 'test revocation', TEST_REVIEWER);

    const forOrder = () => to('/ok').filter((r) => (JSON.parse(r.body) as { data: { order_id: string } }).data.order_id === orderId);
    await until(() => ['order.created', 'order.state_changed', 'certificate.issued', 'certificate.revoked'].every((t) => forOrder().some((r) => typeOf(r) === t && r.headers['webhook-signature'])), 'the four events');

    const verifier = new Webhook(secret);
    const byType = new Map<string, Record<string, unknown>>();
    for (const r of forOrder()) {
      // Only requests signed with this endpoint's secret verify (the second endpoint has its own).
      let payload: Record<string, unknown>;
      try {
        payload = verifier.verify(r.body, r.headers as Record<string, string>) as Record<string, unknown>;
      } catch {
        continue;
      }
      assert.match(r.headers['webhook-id'] as string, UUID);
      assert.match(r.headers['webhook-signature'] as string, /^v1,[A-Za-z0-9+/]+=*$/);
      assert.deepEqual(Object.keys(payload).sort(), ['data', 'timestamp', 'type']);
      if (!byType.has(payload.type as string)) byType.set(payload.type as string, payload);
    }
    const created = byType.get('order.created')!.data as Record<string, unknown>;
    assert.deepEqual(created, { order_id: orderId, organization_id: ACME.id, project_id: null, order_state: 'In Progress', previous_state: null });
    const moved = byType.get('order.state_changed')!.data as Record<string, unknown>;
    assert.deepEqual(moved, { order_id: orderId, organization_id: ACME.id, project_id: null, order_state: 'Human Certified', previous_state: 'In Progress' });
    assert.deepEqual(byType.get('certificate.issued')!.data, { certificate_id: certificate.certificate_id, order_id: orderId, organization_id: ACME.id, status: 'valid' });
    assert.deepEqual(byType.get('certificate.revoked')!.data, { certificate_id: certificate.certificate_id, order_id: orderId, organization_id: ACME.id, status: 'revoked' });
    assert.match(byType.get('order.created')!.timestamp as string, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);

    // One event id per change, shared by every endpoint subscribed to it.
    const createdIds = new Set(to('/ok').filter((r) => typeOf(r) === 'order.created' && r.body.includes(orderId)).map((r) => r.headers['webhook-id']));
    assert.equal(createdIds.size, 1);

    const log = await call('GET', `/v1/webhook-endpoints/${id}/deliveries?limit=2`, 'admin');
    assert.equal(log.statusCode, 200);
    api.openapi.assertResponse(operationId('/v1/webhook-endpoints/{endpoint_id}/deliveries', 'get'), log.statusCode, log.json());
    const page = log.json() as { deliveries: Array<Record<string, unknown>>; next_page_token: string | null };
    assert.equal(page.deliveries.length, 2);
    assert.equal(page.deliveries[0]!.event_type, 'certificate.revoked', 'newest first');
    assert.equal(page.deliveries[0]!.status, 'succeeded');
    assert.equal(page.deliveries[0]!.response_status, 200);
    assert.ok(page.next_page_token);
    const rest = (await call('GET', `/v1/webhook-endpoints/${id}/deliveries?page_token=${page.next_page_token}`, 'admin')).json() as { deliveries: Array<{ id: string }> };
    assert.ok(rest.deliveries.length >= 2);
    assert.ok(!rest.deliveries.some((d) => page.deliveries.some((p) => p.id === d.id)));
    assert.equal((await call('GET', `/v1/webhook-endpoints/${id}/deliveries?page_token=garbage`, 'admin')).statusCode, 422);

    // Send again: same webhook-id.
    const first = page.deliveries[0]!;
    const before = to('/ok').length;
    const retry = await call('POST', `/v1/webhook-endpoints/${id}/deliveries/${first.id as string}/retry`, 'admin');
    assert.equal(retry.statusCode, 202);
    await until(() => to('/ok').length > before, 'the retried delivery');
    assert.equal(to('/ok').at(-1)!.headers['webhook-id'], first.event_id);
    for (const e of [id, second.id]) await call('DELETE', `/v1/webhook-endpoints/${e}`, 'admin');
  });

  it('signs with both secrets for a day after a rotation', async () => {
    const { id, secret: old } = await createEndpoint('/rotation', ['order.created']);
    const rotated = (await call('POST', `/v1/webhook-endpoints/${id}/rotate-secret`, 'admin')).json() as { secret: string };
    await createOrderWithAsset(api.app, api.tokens.admin, pngBytes());
    await until(() => to('/rotation').length > 0, 'a delivery after rotation');
    const r = to('/rotation')[0]!;
    assert.equal((r.headers['webhook-signature'] as string).split(' ').length, 2);
    for (const secret of [old, rotated.secret]) new Webhook(secret).verify(r.body, r.headers as Record<string, string>);
    await call('DELETE', `/v1/webhook-endpoints/${id}`, 'admin');
  });

  it('retries a 500, fails a redirect and a hanging receiver, cuts an endless body, disables on 410', async () => {
    const failing = await createEndpoint('/fail', ['order.created']);
    const redirect = await createEndpoint('/redirect', ['order.created']);
    const hang = await createEndpoint('/hang', ['order.created']);
    const huge = await createEndpoint('/huge', ['order.created']);
    const gone = await createEndpoint('/gone', ['order.created']);
    await createOrderWithAsset(api.app, api.tokens.admin, pngBytes());

    await until(() => to('/fail').length >= 3, 'three attempts at the failing receiver');
    assert.equal(new Set(to('/fail').map((r) => r.headers['webhook-id'])).size, 1, 'every retry has the same webhook-id');
    const failed = (await deliveriesOf(failing.id)).deliveries[0]!;
    assert.equal(failed.status, 'pending');
    assert.equal(failed.response_status, 500);
    assert.ok((failed.attempts as number) >= 2);

    await until(async () => ((await deliveriesOf(gone.id)).deliveries[0]?.attempts as number) >= 1, 'the 410');
    assert.equal((await deliveriesOf(gone.id)).deliveries[0]!.status, 'failed');
    const goneEndpoint = await endpointOf(gone.id);
    assert.equal(goneEndpoint.status, 'disabled');
    assert.match(goneEndpoint.disabled_reason as string, /410/);

    await until(async () => ((await deliveriesOf(redirect.id)).deliveries[0]?.attempts as number) >= 1, 'the redirect');
    assert.equal((await deliveriesOf(redirect.id)).deliveries[0]!.response_status, 302);
    assert.equal((await deliveriesOf(redirect.id)).deliveries[0]!.status, 'pending');

    await until(async () => ((await deliveriesOf(hang.id)).deliveries[0]?.attempts as number) >= 1, 'the hanging receiver');
    assert.equal((await deliveriesOf(hang.id)).deliveries[0]!.response_status, null);

    await until(async () => ((await deliveriesOf(huge.id)).deliveries[0]?.status as string) === 'succeeded', 'the endless body');
    const excerpt = await sql<{ n: number }>`SELECT length(response_excerpt) AS n FROM webhook_deliveries WHERE endpoint_id = ${huge.id}::uuid`.execute(api.database.db);
    assert.ok(Number(excerpt.rows[0]!.n) <= 1024);

    // Three days of failures: the delivery fails for good and the endpoint is disabled, with the reason.
    await sql`UPDATE webhook_deliveries SET created_at = now() - interval '4 days', next_attempt_at = now() WHERE endpoint_id = ${failing.id}::uuid`.execute(api.database.db);
    await until(async () => (await deliveriesOf(failing.id)).deliveries[0]!.status === 'failed', 'the expired delivery');
    const expired = await endpointOf(failing.id);
    assert.equal(expired.status, 'disabled');
    assert.match(expired.disabled_reason as string, /72 hours/);

    // A disabled endpoint gets no new deliveries.
    await createOrderWithAsset(api.app, api.tokens.admin, pngBytes());
    assert.equal((await deliveriesOf(gone.id)).deliveries.length, 1);
    for (const e of [failing, redirect, hang, huge, gone]) await call('DELETE', `/v1/webhook-endpoints/${e.id}`, 'admin');
  });

  it('writes no event when no endpoint subscribes, and an endpoint deleted with pending deliveries takes them along', async () => {
    const count = async () => Number((await sql<{ n: string }>`SELECT count(*) AS n FROM webhook_events`.execute(api.database.db)).rows[0]!.n);
    const before = await count();
    await createOrderWithAsset(api.app, api.tokens.admin, pngBytes());
    assert.equal(await count(), before);

    const { id } = await createEndpoint('/deleted', ['order.created']);
    await createOrderWithAsset(api.app, api.tokens.admin, pngBytes());
    assert.equal(await count(), before + 1);
    assert.equal((await call('DELETE', `/v1/webhook-endpoints/${id}`, 'admin')).statusCode, 204);
    await until(async () => (await api.app.services.jobs.worker.runDue()) === 0, 'the queue to drain');
    assert.equal(to('/deleted').length, 0);
  });

  it('writes the event in the transaction of the change: a rolled-back move leaves no event', async () => {
    const { id } = await createEndpoint('/rollback', ['order.state_changed']);
    const orderId = await createOrderWithAsset(api.app, api.tokens.admin, pngBytes());
    const events = async () => Number((await sql<{ n: string }>`SELECT count(*) AS n FROM webhook_events WHERE payload -> 'data' ->> 'order_id' = ${orderId}`.execute(api.database.db)).rows[0]!.n);
    await assert.rejects(
      api.database.db.transaction().execute(async (trx) => {
        await changeOrderIn(trx, api.app.services.clock, orderId, TEST_REVIEWER, { to: 'Human Certified', onlyFrom: ['In Progress'] });
        assert.equal(Number((await sql<{ n: string }>`SELECT count(*) AS n FROM webhook_events WHERE payload -> 'data' ->> 'order_id' = ${orderId}`.execute(trx)).rows[0]!.n), 1, 'written with the move');
        throw new Error('roll back');
      }),
      /roll back/,
    );
    assert.equal(await events(), 0);
    await call('DELETE', `/v1/webhook-endpoints/${id}`, 'admin');
  });

  it('sends at most PER_ENDPOINT_CONCURRENCY requests at once to one slow endpoint, while others are served', async () => {
    const slow = await createEndpoint('/hang?slow', ['order.created']);
    const fast = await createEndpoint('/ok?fast', ['order.created']);
    for (let i = 0; i < 8; i++) await createOrderWithAsset(api.app, api.tokens.admin, pngBytes());
    await until(() => to('/hang?slow').length >= 8 && to('/ok?fast').length >= 8, 'every delivery attempted at both endpoints');
    const most = receiver.maxOpen.get('/hang?slow')!;
    assert.ok(most >= 1 && most <= PER_ENDPOINT_CONCURRENCY, `at most ${PER_ENDPOINT_CONCURRENCY} at once (saw ${most})`);
    for (const e of [slow, fast]) await call('DELETE', `/v1/webhook-endpoints/${e.id}`, 'admin');
  });

  it('forgets settled events after 30 days (the cleanup job), never one with a pending delivery', async () => {
    const ok = await createEndpoint('/ok?retention', ['order.created']);
    const failing = await createEndpoint('/fail?retention', ['order.created']);
    const orderId = await createOrderWithAsset(api.app, api.tokens.admin, pngBytes());
    await until(async () => (await deliveriesOf(ok.id)).deliveries[0]?.status === 'succeeded', 'the delivery');
    const db = api.database.db;
    await sql`UPDATE webhook_events SET created_at = now() - interval '31 days' WHERE payload -> 'data' ->> 'order_id' = ${orderId}`.execute(db);
    const remaining = async () => Number((await sql<{ n: string }>`SELECT count(*) AS n FROM webhook_events WHERE payload -> 'data' ->> 'order_id' = ${orderId}`.execute(db)).rows[0]!.n);
    assert.equal(await deleteSettledWebhookEvents(db, WEBHOOK_EVENT_RETENTION_MS), 0, 'the failing endpoint still has it pending');
    // Failed for good; again until no attempt that was in flight writes it back to pending.
    await until(async () => {
      await sql`UPDATE webhook_deliveries SET status = 'failed' WHERE endpoint_id = ${failing.id}::uuid`.execute(db);
      return (await deleteSettledWebhookEvents(db, WEBHOOK_EVENT_RETENTION_MS)) === 1;
    }, 'the event forgotten once its last delivery failed for good');
    assert.equal(await remaining(), 0);
    assert.deepEqual((await deliveriesOf(ok.id)).deliveries, []);
    for (const e of [ok, failing]) await call('DELETE', `/v1/webhook-endpoints/${e.id}`, 'admin');
  });
});
