/**
 * verifyWebhook against signatures computed independently here (node:crypto HMAC), per the Standard
 * Webhooks scheme: `v1,` + base64 HMAC-SHA256 of `id.timestamp.payload` keyed by the whsec_ secret.
 */
import assert from 'node:assert/strict';
import { createHmac, randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import { verifyWebhook, WebhookVerificationError } from '../src/index.js';

const secretBytes = randomBytes(32);
const secret = `whsec_${secretBytes.toString('base64')}`;
const now = Date.parse('2026-11-26T10:00:00Z');
const ts = String(now / 1000);
const payload = JSON.stringify({ type: 'order.created', timestamp: '2026-11-26T10:00:00Z', data: { order_id: 'o1', previous_state: null } });

function sign(key: Buffer, id: string, timestamp: string, body: string): string {
  return `v1,${createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64')}`;
}

describe('verifyWebhook', () => {
  it('accepts an authentic delivery (plain headers or Headers, either signature of a rotation)', async () => {
    const event = await verifyWebhook(payload, { 'Webhook-Id': 'evt_1', 'webhook-timestamp': ts, 'webhook-signature': sign(secretBytes, 'evt_1', ts, payload) }, secret, { now: () => now });
    assert.equal(event.type, 'order.created');
    const rotated = `${sign(randomBytes(32), 'evt_1', ts, payload)} ${sign(secretBytes, 'evt_1', ts, payload)}`;
    const headers = new Headers({ 'webhook-id': 'evt_1', 'webhook-timestamp': ts, 'webhook-signature': rotated });
    assert.equal((await verifyWebhook(new TextEncoder().encode(payload), headers, secret, { now: () => now })).data.order_id, 'o1');
  });

  it('refuses a changed body, another secret, a stale timestamp and missing headers', async () => {
    const good = { 'webhook-id': 'evt_1', 'webhook-timestamp': ts, 'webhook-signature': sign(secretBytes, 'evt_1', ts, payload) };
    const refuse = (p: Promise<unknown>) => assert.rejects(p, WebhookVerificationError);
    await refuse(verifyWebhook(payload.replace('o1', 'o2'), good, secret, { now: () => now }));
    await refuse(verifyWebhook(payload, good, `whsec_${randomBytes(32).toString('base64')}`, { now: () => now }));
    await refuse(verifyWebhook(payload, { ...good, 'webhook-id': 'evt_2' }, secret, { now: () => now }));
    await refuse(verifyWebhook(payload, good, secret, { now: () => now + 301_000 }));
    await refuse(verifyWebhook(payload, { 'webhook-id': 'evt_1', 'webhook-timestamp': ts }, secret, { now: () => now }));
  });
});
