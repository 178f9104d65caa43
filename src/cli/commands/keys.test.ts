import assert from 'node:assert/strict';
import { it } from 'node:test';
import { describeKeys } from './keys.js';

it('marks a key retired longer ago than TTL + skew as expired', () => {
  const now = new Date('2026-01-01T12:00:00Z');
  const retiredAt = new Date(now.getTime() - 2 * 3600_000);
  const rows = [
    { kid: 'new', alg: 'ES256', publicJwk: {}, privateKey: '', encrypted: true, createdAt: now, retiredAt: null },
    { kid: 'old', alg: 'ES256', publicJwk: {}, privateKey: '', encrypted: true, createdAt: retiredAt, retiredAt },
  ];
  assert.deepEqual(describeKeys(rows, { accessTokenTtlSeconds: 3600 }, now).map((k) => k.state), ['signing', 'expired']);
});

it('keeps a retired key that signed a certificate published for good', () => {
  const now = new Date('2026-01-01T12:00:00Z');
  const retiredAt = new Date(now.getTime() - 400 * 24 * 3600_000);
  const rows = [
    { kid: 'new', alg: 'ES256', publicJwk: {}, privateKey: '', encrypted: true, createdAt: now, retiredAt: null },
    { kid: 'old', alg: 'ES256', publicJwk: {}, privateKey: '', encrypted: true, createdAt: retiredAt, retiredAt },
  ];
  const listing = describeKeys(rows, { accessTokenTtlSeconds: 3600 }, now, new Set(['old']));
  assert.deepEqual(listing.map((k) => [k.state, k.published_until, k.signed_certificates]), [
    ['signing', null, false],
    ['published', null, true],
  ]);
});
