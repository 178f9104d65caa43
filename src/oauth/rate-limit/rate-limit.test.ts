import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import pino from 'pino';
import type { DatabaseHandle } from '../../storage/database.js';
import { databaseTargets } from '../../../test/helpers/database.js';
import { buildOAuthTestApp, form, FORM_HEADERS, seedClient, type SeededClient } from '../../../test/oauth/oauth-harness.js';
import { AuthFailureLimiter } from './auth-failure-limiter.js';
import type { FailureStore } from './failure-store.js';
import { MemoryFailureStore } from './memory-store.js';
import { RedisFailureStore } from './redis-store.js';

const silent = pino({ level: 'silent' });
const redisUrl = process.env.TEST_REDIS_URL;

const stores: Array<{ name: string; make: () => FailureStore; skip?: string }> = [
  { name: 'memory', make: () => new MemoryFailureStore() },
];
if (redisUrl) stores.push({ name: 'redis', make: () => new RedisFailureStore(redisUrl, `certdesk-test:${randomUUID()}:`) });

for (const s of stores) {
  describe(`failure store: ${s.name}`, () => {
    it('counts in a fixed window that starts at the first failure and then ends', async () => {
      const store = s.make();
      try {
        assert.equal(await store.peek('k'), null);
        assert.equal((await store.increment('k', 300)).count, 1);
        const second = await store.increment('k', 300);
        assert.equal(second.count, 2);
        assert.ok(second.resetInMs > 0 && second.resetInMs <= 300);
        assert.equal((await store.peek('k'))?.count, 2);
        await new Promise((r) => setTimeout(r, 350));
        assert.equal(await store.peek('k'), null);
        assert.equal((await store.increment('k', 300)).count, 1);
      } finally {
        await store.close();
      }
    });

    it('limiter: blocks a client id or an address after the maximum, for the rest of the window', async () => {
      const limiter = new AuthFailureLimiter(s.make(), silent, { maxFailures: 2, windowMs: 60_000 });
      try {
        const subject = { clientId: 'c1', address: '10.0.0.1' };
        assert.equal(await limiter.blockedFor(subject), 0);
        await limiter.recordFailure(subject);
        assert.equal(await limiter.blockedFor(subject), 0);
        await limiter.recordFailure(subject);
        const wait = await limiter.blockedFor(subject);
        assert.ok(wait > 50 && wait <= 60, `retry after ${wait}s`);
        assert.ok((await limiter.blockedFor({ clientId: 'c1', address: '10.0.0.2' })) > 0, 'the client id is blocked from anywhere');
        assert.ok((await limiter.blockedFor({ clientId: 'c2', address: '10.0.0.1' })) > 0, 'the address is blocked for any client');
        assert.equal(await limiter.blockedFor({ clientId: 'c2', address: '10.0.0.2' }), 0);
      } finally {
        await limiter.close();
      }
    });
  });
}

if (redisUrl) {
  describe('redis failure store shared by two instances', () => {
    it('a failure counted by one instance blocks on the other', async () => {
      const prefix = `certdesk-test:${randomUUID()}:`;
      const one = new AuthFailureLimiter(new RedisFailureStore(redisUrl, prefix), silent, { maxFailures: 2 });
      const two = new AuthFailureLimiter(new RedisFailureStore(redisUrl, prefix), silent, { maxFailures: 2 });
      try {
        const subject = { clientId: 'shared', address: '192.0.2.1' };
        await one.recordFailure(subject);
        await two.recordFailure(subject);
        assert.ok((await one.blockedFor(subject)) > 0);
        assert.ok((await two.blockedFor(subject)) > 0);
      } finally {
        await one.close();
        await two.close();
      }
    });
  });
}

describe('limiter with an unavailable store', () => {
  it('lets requests through (fails open) and logs', async () => {
    const broken: FailureStore = {
      increment: () => Promise.reject(new Error('down')),
      peek: () => Promise.reject(new Error('down')),
      close: async () => undefined,
    };
    const lines: string[] = [];
    const limiter = new AuthFailureLimiter(broken, pino({ level: 'warn' }, { write: (l: string) => void lines.push(l) }));
    await limiter.recordFailure({ clientId: 'x', address: '10.0.0.9' });
    assert.equal(await limiter.blockedFor({ clientId: 'x', address: '10.0.0.9' }), 0);
    assert.equal(lines.length, 2);
  });
});

for (const target of databaseTargets()) {
  describe(`token endpoint brute-force guard on ${target.name}`, () => {
    let handle: DatabaseHandle;
    let app: FastifyInstance;
    let client: SeededClient;
    before(async () => {
      handle = await target.open();
      const failureStore = redisUrl ? new RedisFailureStore(redisUrl, `certdesk-test:${randomUUID()}:`) : new MemoryFailureStore();
      app = await buildOAuthTestApp(handle, { limiter: { maxFailures: 3, windowMs: 60_000 }, failureStore });
      client = await seedClient(handle.db);
    });
    after(async () => {
      await app.close();
      await handle.close();
    });

    const attempt = (clientId: string, secret: string, remoteAddress: string) =>
      app.inject({
        method: 'POST',
        url: '/oauth2/token',
        remoteAddress,
        headers: FORM_HEADERS,
        payload: form({ grant_type: 'client_credentials', client_id: clientId, client_secret: secret }),
      });

    it('answers 429 with Retry-After after too many failures for a client, even with the right secret', async () => {
      for (let i = 0; i < 3; i++) assert.equal((await attempt(client.clientId, `wrong-${i}`, `198.51.100.${i}`)).statusCode, 401);
      const res = await attempt(client.clientId, client.clientSecret, '198.51.100.200');
      assert.equal(res.statusCode, 429);
      assert.deepEqual(res.json(), { error: 'invalid_client', error_description: 'Too many failed attempts; retry later' });
      const retryAfter = Number(res.headers['retry-after']);
      assert.ok(retryAfter >= 1 && retryAfter <= 60, `Retry-After ${retryAfter}`);
      assert.equal(res.headers['cache-control'], 'no-store');
      assert.equal(res.headers['pragma'], 'no-cache');
    });

    it('blocks an address that guesses many client ids', async () => {
      const other = await seedClient(handle.db);
      for (let i = 0; i < 3; i++) assert.equal((await attempt(`guess-${i}`, 'x', '203.0.113.7')).statusCode, 401);
      assert.equal((await attempt(other.clientId, other.clientSecret, '203.0.113.7')).statusCode, 429);
      assert.equal((await attempt(other.clientId, other.clientSecret, '203.0.113.8')).statusCode, 200, 'other addresses unaffected');
    });
  });
}
