/** Unit tests of @certdesk/client's pieces that need no server: retry delays, the token cache, output formats. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseRetryAfter, retryDelayMs, DEFAULT_RETRY } from '../src/retry.js';
import { TokenCache } from '../src/token.js';
import { csvField, table } from '../src/cli/output.js';
import { errorFromResponse } from '../src/errors.js';
import { NotFoundError, RateLimitError, CertdeskError } from '../src/index.js';

describe('retry delays', () => {
  it('reads Retry-After as seconds or an HTTP date', () => {
    const now = Date.parse('2026-01-01T00:00:00Z');
    assert.equal(parseRetryAfter('3', now), 3000);
    assert.equal(parseRetryAfter('Thu, 01 Jan 2026 00:00:10 GMT', now), 10_000);
    assert.equal(parseRetryAfter('garbage', now), null);
    assert.equal(parseRetryAfter(null, now), null);
  });

  it('honours Retry-After (plus a little jitter, capped) and grows exponentially with full jitter otherwise', () => {
    assert.equal(retryDelayMs(DEFAULT_RETRY, 1, 2000, () => 0), 2000);
    assert.ok(retryDelayMs(DEFAULT_RETRY, 1, 2000, () => 0.99) < 2250);
    assert.equal(retryDelayMs(DEFAULT_RETRY, 1, 10 * 60_000, () => 0), DEFAULT_RETRY.maxDelayMs);
    assert.equal(retryDelayMs(DEFAULT_RETRY, 3, null, () => 0.5), 500);
    assert.equal(retryDelayMs(DEFAULT_RETRY, 30, null, () => 0.5), DEFAULT_RETRY.maxDelayMs / 2);
  });
});

describe('TokenCache', () => {
  it('shares one fetch among concurrent callers and refreshes a margin before expiry', async () => {
    let now = 0;
    let fetches = 0;
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const cache = new TokenCache(async () => {
      fetches++;
      await gate;
      return { accessToken: `t${fetches}`, expiresInSeconds: 3600 };
    }, () => now, 60_000);
    const waiting = Promise.all([cache.get(), cache.get(), cache.get()]);
    release();
    assert.deepEqual(await waiting, ['t1', 't1', 't1']);
    now = 3539_000;
    assert.equal(await cache.get(), 't1');
    now = 3540_000;
    assert.equal(await cache.get(), 't2');
    cache.invalidate('t2');
    assert.equal(await cache.get(), 't3');
    assert.equal(fetches, 3);
  });

  it('lets the next caller try again after a failed fetch', async () => {
    let calls = 0;
    const cache = new TokenCache(async () => {
      calls++;
      if (calls === 1) throw new Error('down');
      return { accessToken: 'ok', expiresInSeconds: 60 };
    }, () => 0);
    await assert.rejects(cache.get(), /down/);
    assert.equal(await cache.get(), 'ok');
  });
});

describe('errors', () => {
  it('has one class per status, with the message of the body', () => {
    const e = errorFromResponse(404, { detail: 'Order not found' }, 'req-1', null);
    assert.ok(e instanceof NotFoundError && e instanceof CertdeskError);
    assert.equal(e.message, '404 Order not found');
    assert.equal(e.requestId, 'req-1');
    assert.ok(errorFromResponse(429, null, null, 1000) instanceof RateLimitError);
    const v = errorFromResponse(422, { detail: [{ loc: ['query', 'limit'], msg: 'Input should be less than or equal to 1000' }] }, null, null);
    assert.equal(v.message, '422 query.limit: Input should be less than or equal to 1000');
    assert.equal(errorFromResponse(418, 'teapot', null, null).constructor, CertdeskError);
  });
});

describe('output', () => {
  it('quotes CSV fields per RFC 4180', () => {
    assert.equal(csvField('plain'), 'plain');
    assert.equal(csvField('a,"b"'), '"a,""b"""');
    assert.equal(csvField(['x', 'y']), 'x;y');
    assert.equal(csvField(null), '');
  });

  it('fits a table into the terminal width', () => {
    const out = table(['id', 'title'], [['1', 'x'.repeat(200)]], 40);
    for (const line of out.trimEnd().split('\n')) assert.ok(line.length <= 40, line);
  });
});
