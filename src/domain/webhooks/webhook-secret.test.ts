import assert from 'node:assert/strict';
import { it } from 'node:test';
import { newWebhookSecret, openWebhookSecret, sealWebhookSecret } from './webhook-secret.js';

const MASTER = 'm'.repeat(40);

it('makes whsec_ secrets of 32 random bytes', () => {
  const secret = newWebhookSecret();
  assert.match(secret, /^whsec_[A-Za-z0-9+/]{43}=$/);
  assert.equal(Buffer.from(secret.slice(6), 'base64').length, 32);
});

it('seals under MASTER_KEY, bound to the endpoint', () => {
  const secret = newWebhookSecret();
  const sealed = sealWebhookSecret(secret, MASTER, 'endpoint-a');
  assert.ok(!sealed.includes(secret.slice(6)));
  assert.equal(openWebhookSecret(sealed, MASTER, 'endpoint-a'), secret);
  assert.throws(() => openWebhookSecret(sealed, MASTER, 'endpoint-b'));
  assert.throws(() => openWebhookSecret(sealed, 'x'.repeat(40), 'endpoint-a'));
  assert.throws(() => openWebhookSecret(sealed, null, 'endpoint-a'));
});
