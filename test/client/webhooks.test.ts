/**
 * `client.webhookEndpoints.*` and `verifyWebhook` against the real application listening on a port and a
 * real local receiver (WEBHOOK_ALLOW_PRIVATE=true lets the service deliver to 127.0.0.1): endpoints
 * managed through the client, deliveries the service signed verified with the secret the client was
 * given (and with both secrets during a rotation), the delivery log paged, a delivery sent again, and the
 * certificate of a `certificate.issued` delivery verified with `verifyCertificate`.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, it } from 'node:test';
import {
  Certdesk,
  NotFoundError,
  PermissionDeniedError,
  UnprocessableEntityError,
  verifyCertificate,
  verifyWebhook,
  WebhookVerificationError,
  type WebhookEvent,
} from '../../clients/typescript/src/index.js';
import { certifyOrder } from '../helpers/certificates.js';
import { describeOnEachDatabase } from '../helpers/database.js';
import { pngBytes } from '../helpers/images.js';
import { startReceiver, type Receiver, type ReceivedRequest } from '../webhooks/receiver.js';
import { credentialsOf, startServedApi, type ServedApi } from './served-api.js';

describeOnEachDatabase('@certdesk/client webhook endpoints', (getDb, target) => {
  let served: ServedApi;
  let receiver: Receiver;
  let admin: Certdesk;
  before(async () => {
    receiver = await startReceiver();
    served = await startServedApi(getDb(), { WEBHOOK_ALLOW_PRIVATE: 'true' });
    admin = new Certdesk(credentialsOf('admin', served.serverUrl));
  });
  after(async () => {
    await served?.close();
    await receiver?.close();
  });

  /** Runs the service's due jobs (deliveries, analyses) until `done` holds; 60 s of real time at most. */
  async function until(done: () => boolean, what: string): Promise<void> {
    const deadline = Date.now() + 60_000;
    while (!done()) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
      const ran = await served.app.services.jobs.worker.runDue();
      if (ran === 0) await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  const at = (path: string) => receiver.received.filter((r) => r.path === path);
  const eventOf = (r: ReceivedRequest) => JSON.parse(r.body) as WebhookEvent & { data: Record<string, string | null> };
  const forOrder = (path: string, orderId: string, type: string) => at(path).filter((r) => eventOf(r).data.order_id === orderId && eventOf(r).type === type);

  it('creates, lists, reads, updates and deletes endpoints; refusals are typed errors', async () => {
    const url = receiver.url(`/ok?crud-${target.name}`);
    const created = await admin.webhookEndpoints.create({ url, events: ['order.created'], description: 'from the client' });
    assert.match(created.secret, /^whsec_[A-Za-z0-9+/]{43}=$/);
    assert.equal(created.status, 'enabled');
    assert.deepEqual(created.events, ['order.created']);
    assert.equal(created.description, 'from the client');

    const listed = (await admin.webhookEndpoints.list()).find((e) => e.id === created.id);
    assert.ok(listed, 'listed');
    assert.ok(!('secret' in listed), 'no secret in the list');
    assert.equal((await admin.webhookEndpoints.get(created.id)).url, url);

    const updated = await admin.webhookEndpoints.update(created.id, { events: ['order.created', 'certificate.issued'], description: null, status: 'disabled' });
    assert.deepEqual(updated.events, ['order.created', 'certificate.issued']);
    // Cleared: the server's body validation turns a JSON null into '' for this string-or-null field.
    assert.equal(updated.description, null);
    assert.equal(updated.status, 'disabled');
    assert.equal((await admin.webhookEndpoints.update(created.id, { status: 'enabled' })).status, 'enabled');

    const unknownEvent = await admin.webhookEndpoints.create({ url, events: ['order.deleted' as never] }).catch((e: unknown) => e);
    assert.ok(unknownEvent instanceof UnprocessableEntityError, String(unknownEvent));
    assert.match(unknownEvent.message, /events/);
    const editor = new Certdesk(credentialsOf('editor', served.serverUrl));
    await assert.rejects(editor.webhookEndpoints.list(), PermissionDeniedError);
    const other = new Certdesk(credentialsOf('other', served.serverUrl));
    await assert.rejects(other.webhookEndpoints.get(created.id), NotFoundError, "another organization's endpoint does not exist for them");

    await admin.webhookEndpoints.delete(created.id);
    await assert.rejects(admin.webhookEndpoints.get(created.id), NotFoundError);
    assert.ok(!(await admin.webhookEndpoints.list()).some((e) => e.id === created.id));
  });

  it('verifies real deliveries with the secret it was given, and the certificate a certificate.issued event names', async () => {
    const path = `/ok?deliveries-${target.name}`;
    const endpoint = await admin.webhookEndpoints.create({ url: receiver.url(path), events: ['order.created', 'certificate.issued'] });
    const order = await admin.orders.create({ file: new Uint8Array(pngBytes(6, 4)), contentType: 'image/png', fileName: 'hook.png', orderTitle: 'webhook delivery' });
    await until(() => forOrder(path, order.order_id, 'order.created').length > 0, 'order.created');

    const [createdDelivery] = forOrder(path, order.order_id, 'order.created');
    const event = await verifyWebhook(createdDelivery!.body, createdDelivery!.headers as Record<string, string>, endpoint.secret);
    assert.equal(event.type, 'order.created');
    assert.equal(event.data.order_id, order.order_id);
    assert.equal(event.data.previous_state, null);
    // The same delivery with a changed body, or checked with another secret, is refused.
    await assert.rejects(verifyWebhook(createdDelivery!.body.replace(order.order_id, 'acme-0001'), createdDelivery!.headers as Record<string, string>, endpoint.secret), WebhookVerificationError);
    await assert.rejects(verifyWebhook(createdDelivery!.body, createdDelivery!.headers as Record<string, string>, `whsec_${randomBytes(32).toString('base64')}`), WebhookVerificationError);

    await certifyOrder(served.app, order.order_id);
    await until(() => forOrder(path, order.order_id, 'certificate.issued').length > 0, 'certificate.issued');
    const [issuedDelivery] = forOrder(path, order.order_id, 'certificate.issued');
    const issued = await verifyWebhook(issuedDelivery!.body, new Headers(issuedDelivery!.headers as Record<string, string>), endpoint.secret);
    assert.equal(issued.data.status, 'valid');
    // What a receiver does next: read the certificate through the API and check it offline.
    const certificate = await admin.orders.certificate(order.order_id);
    assert.equal(issued.data.certificate_id, certificate.certificate_id);
    const { claims } = await verifyCertificate(certificate.jws, (await admin.certificates.jwks()) as never, { issuer: served.serverUrl });
    assert.equal(claims.jti, certificate.certificate_id);
    assert.equal(claims.sub, order.order_id);

    // During a rotation each delivery carries two signatures: the old secret and the new one both verify it.
    const { secret: rotated } = await admin.webhookEndpoints.rotateSecret(endpoint.id);
    assert.notEqual(rotated, endpoint.secret);
    const second = await admin.orders.create({ file: new Uint8Array(pngBytes(5, 3)), contentType: 'image/png', fileName: 'hook2.png', orderTitle: 'after the rotation' });
    await until(() => forOrder(path, second.order_id, 'order.created').length > 0, 'order.created after the rotation');
    const [afterRotation] = forOrder(path, second.order_id, 'order.created');
    assert.equal(String(afterRotation!.headers['webhook-signature']).split(' ').length, 2, 'two signatures');
    for (const secret of [rotated, endpoint.secret]) {
      assert.equal((await verifyWebhook(afterRotation!.body, afterRotation!.headers as Record<string, string>, secret)).data.order_id, second.order_id);
    }

    // The delivery log, paged one at a time, newest first; "send again" delivers the same webhook-id.
    const pages: number[] = [];
    for await (const page of admin.webhookEndpoints.deliveries(endpoint.id, { limit: 1 }).pages()) pages.push(page.deliveries.length);
    const log = await admin.webhookEndpoints.deliveries(endpoint.id).toArray();
    assert.equal(log.length, 3);
    assert.deepEqual(pages, [1, 1, 1]);
    assert.deepEqual(
      log.map((d) => [d.event_type, d.status, d.response_status]),
      [
        ['order.created', 'succeeded', 200],
        ['certificate.issued', 'succeeded', 200],
        ['order.created', 'succeeded', 200],
      ],
    );
    const first = log.at(-1)!;
    assert.equal(first.event_id, createdDelivery!.headers['webhook-id']);
    const before = at(path).length;
    await admin.webhookEndpoints.retryDelivery(endpoint.id, first.id);
    await until(() => at(path).length > before, 'the delivery sent again');
    const again = at(path).at(-1)!;
    assert.equal(again.headers['webhook-id'], first.event_id);
    assert.equal((await verifyWebhook(again.body, again.headers as Record<string, string>, rotated)).data.order_id, order.order_id);
    await assert.rejects(admin.webhookEndpoints.retryDelivery(endpoint.id, '00000000-0000-4000-8000-000000000000'), NotFoundError);
    await admin.webhookEndpoints.delete(endpoint.id);
  });
});
