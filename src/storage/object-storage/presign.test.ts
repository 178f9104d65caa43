import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { HmacUrlPresigner, MAX_CACHED_URLS } from './presign.js';

const key = Buffer.alloc(32, 7);
const parse = (url: string) => {
  const u = new URL(url);
  return { path: u.pathname, expires: u.searchParams.get('expires')!, signature: u.searchParams.get('signature')! };
};

describe('HmacUrlPresigner', () => {
  it('signs a URL under the public base that verifies until it expires', () => {
    const p = new HmacUrlPresigner(key, 'https://cdn.example/', 900);
    const now = 1_800_000_000;
    const { path, expires, signature } = parse(p.presign('previews/a b.png', now));
    assert.equal(path, '/objects/previews/a%20b.png');
    const lifetime = Number(expires) - now;
    assert.ok(lifetime > 900 - 60 && lifetime <= 900, `lifetime ${lifetime}`);
    assert.equal(p.verify('previews/a b.png', expires, signature, now), 'ok');
    assert.equal(p.verify('previews/a b.png', expires, signature, Number(expires)), 'ok');
    assert.equal(p.verify('previews/a b.png', expires, signature, Number(expires) + 1), 'expired');
  });

  it('refuses another key, another expiry, another secret and any changed character', () => {
    const p = new HmacUrlPresigner(key, 'https://x', 900);
    const now = 1_800_000_000;
    const { expires, signature } = parse(p.presign('k.png', now));
    assert.equal(p.verify('k2.png', expires, signature, now), 'bad-signature');
    assert.equal(p.verify('k.png', String(Number(expires) + 60), signature, now), 'bad-signature');
    assert.equal(new HmacUrlPresigner(Buffer.alloc(32, 8), 'https://x', 900).verify('k.png', expires, signature, now), 'bad-signature');
    for (let i = 0; i < signature.length; i++) {
      const alt = signature.slice(0, i) + (signature[i] === 'A' ? 'B' : 'A') + signature.slice(i + 1);
      assert.equal(p.verify('k.png', expires, alt, now), 'bad-signature', `position ${i}`);
    }
    for (const [e, s] of [[undefined, signature], [expires, undefined], ['-1', signature], ['1e9', signature], [expires, 'a+b/']]) {
      assert.equal(p.verify('k.png', e, s, now), 'bad-signature');
    }
  });

  it('gives the same URL within an expiry step and a new one in the next step', () => {
    const p = new HmacUrlPresigner(key, 'https://x', 900);
    const base = 1_800_000_020 - (1_800_000_020 % 60);
    assert.equal(p.presign('k.png', base), p.presign('k.png', base + 59));
    assert.notEqual(p.presign('k.png', base), p.presign('k.png', base + 60));
    // Short TTLs use a step of a tenth of the TTL, so a URL never lives less than 90 % of it.
    const short = new HmacUrlPresigner(key, 'https://x', 10);
    const { expires } = parse(short.presign('k.png', base + 5));
    assert.equal(Number(expires), base + 15);
  });

  it('caches per (key, window) in a bounded LRU: cached URLs are the ones a fresh signer computes', () => {
    const p = new HmacUrlPresigner(key, 'https://x', 900);
    const base = 1_800_000_000 - (1_800_000_000 % 60);
    const keys = Array.from({ length: MAX_CACHED_URLS + 500 }, (_, i) => `previews/${i}.png`);
    for (const k of keys) p.presign(k, base);
    assert.equal(p.cachedUrls, MAX_CACHED_URLS, 'bounded');
    // Recently used keys answer from the cache, evicted ones are signed again: the URL is the same either way.
    const fresh = new HmacUrlPresigner(key, 'https://x', 900);
    for (const k of [keys[0]!, keys.at(-1)!, keys[1000]!]) assert.equal(p.presign(k, base + 30), fresh.presign(k, base));
    // A URL cached in one window is not handed out in the next.
    const next = parse(p.presign(keys.at(-1)!, base + 60));
    assert.equal(Number(next.expires), base + 60 + 900);
    assert.equal(p.verify(keys.at(-1)!, next.expires, next.signature, base + 60), 'ok');
  });

  it('presignJson is the URL as a JSON string, from the same cache entry and window', () => {
    const p = new HmacUrlPresigner(key, 'https://x', 900);
    const base = 1_800_000_000 - (1_800_000_000 % 60);
    for (const k of ['previews/a b.png', 'previews/é"\\.png', 'k.png']) {
      assert.equal(p.presignJson(k, base), JSON.stringify(p.presign(k, base)));
      assert.equal(JSON.parse(p.presignJson(k, base + 59)), p.presign(k, base), 'same window');
      assert.equal(JSON.parse(p.presignJson(k, base + 60)), p.presign(k, base + 60), 'next window');
    }
  });

  it('presignJsonBytes is presignJson in UTF-8, signed again in the next window', () => {
    const p = new HmacUrlPresigner(key, 'https://x', 900);
    const base = 1_800_000_000 - (1_800_000_000 % 60);
    for (const k of ['previews/a b.png', 'previews/é"\\.png', 'k.png']) {
      assert.equal(p.presignJsonBytes(k, base).toString('utf8'), p.presignJson(k, base));
      assert.equal(p.presignJsonBytes(k, base + 59).toString('utf8'), p.presignJson(k, base), 'same window');
      assert.equal(p.presignJsonBytes(k, base + 60).toString('utf8'), p.presignJson(k, base + 60), 'next window');
      assert.notEqual(p.presignJson(k, base + 60), p.presignJson(k, base));
    }
  });
});
