import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CLOCK_TOLERANCE_SECONDS, type VerifiedToken } from '../access-token.js';
import { VerifiedTokenCache } from './verified-token-cache.js';

const verified = (exp: number): VerifiedToken => ({ clientId: 'c', scopes: ['s'], payload: { exp } });

describe('verified token cache', () => {
  it('hits only the exact token, and only until exp plus the clock tolerance', () => {
    const cache = new VerifiedTokenCache();
    const exp = Math.floor(Date.now() / 1000) + 60;
    cache.set('header.payload.signature', verified(exp));
    assert.equal(cache.get('header.payload.signature')?.clientId, 'c');
    assert.equal(cache.get('header.other-payload.signature'), undefined, 'same signature, other payload');
    assert.equal(cache.get('other-header.payload.signature'), undefined);
    assert.ok(cache.get('header.payload.signature', (exp + CLOCK_TOLERANCE_SECONDS) * 1000 - 1));
    assert.equal(cache.get('header.payload.signature', (exp + CLOCK_TOLERANCE_SECONDS) * 1000), undefined);
    assert.equal(cache.size, 0, 'an expired entry is dropped');
  });

  it('stays within its size bound, dropping the oldest entry', () => {
    const cache = new VerifiedTokenCache(2);
    const exp = Math.floor(Date.now() / 1000) + 60;
    cache.set('a.a.1', verified(exp));
    cache.set('b.b.2', verified(exp));
    cache.set('c.c.3', verified(exp));
    assert.equal(cache.size, 2);
    assert.equal(cache.get('a.a.1'), undefined);
    assert.ok(cache.get('c.c.3'));
  });
});
