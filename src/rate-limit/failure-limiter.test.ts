import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, describe, it } from 'node:test';
import pino from 'pino';
import { FailureLimiter, type FailureLimits, type RefusalEvent } from './failure-limiter.js';
import type { FailureStore } from './failure-store.js';
import { MemoryFailureStore } from './memory-failure-store.js';
import { RedisFailureStore } from './redis-failure-store.js';

const silent = pino({ level: 'silent' });
const redisUrl = process.env.TEST_REDIS_URL;
const stores: Array<{ name: string; make: () => FailureStore }> = [{ name: 'memory', make: () => new MemoryFailureStore() }];
if (redisUrl) stores.push({ name: 'redis', make: () => new RedisFailureStore(redisUrl, `certdesk-test:${randomUUID()}:`) });

const LIMITS: FailureLimits = {
  pair: { max: 3, windowMs: 60_000 },
  subject: { max: 6, windowMs: 60_000 },
  address: { max: 10, windowMs: 60_000 },
  unknownPerAddress: { max: 3, windowMs: 60_000 },
};

for (const s of stores) {
  describe(`failure store: ${s.name}`, () => {
    const opened: FailureStore[] = [];
    const store = () => {
      const made = s.make();
      opened.push(made);
      return made;
    };
    after(() => Promise.all(opened.map((o) => o.close())));

    it('counts in a fixed window that starts at the first failure and ends by the given clock', async () => {
      const store = s.make();
      try {
        const t0 = 1_900_000_000_000;
        assert.deepEqual(await store.peekMany(['k'], t0), [null]);
        assert.deepEqual(await store.increment('k', 300, t0), { count: 1, resetAt: t0 + 300 });
        assert.deepEqual(await store.increment('k', 300, t0 + 100), { count: 2, resetAt: t0 + 300 });
        assert.deepEqual(await store.peekMany(['k', 'other'], t0 + 299), [{ count: 2, resetAt: t0 + 300 }, null]);
        assert.deepEqual(await store.peekMany(['k'], t0 + 300), [null]);
        assert.deepEqual(await store.increment('k', 300, t0 + 300), { count: 1, resetAt: t0 + 600 });
        await store.reset('k');
        assert.deepEqual(await store.peekMany(['k'], t0 + 301), [null]);
      } finally {
        await store.close();
      }
    });

    it('limiter: an attacker at one address never locks the subject out for another address', async () => {
      let now = 1_900_000_000_000;
      const limiter = new FailureLimiter({ name: 't', store: store(), log: silent, limits: LIMITS, now: () => now });
      const refusals: RefusalEvent[] = [];
      limiter.onRefused((e) => refusals.push(e));
      const attacker = { subject: 'victim', address: '203.0.113.1' };
      const owner = { subject: 'victim', address: '198.51.100.1' };
      for (let i = 0; i < 3; i++) await limiter.recordFailure(attacker);
      const refused = await limiter.check(attacker);
      assert.deepEqual([refused.blocked, refused.rule, refused.retryAfterSeconds], [true, 'pair', 60]);
      assert.deepEqual(refusals, [{ limiter: 't', rule: 'pair', retryAfterSeconds: 60 }]);
      assert.equal((await limiter.check(owner)).blocked, false);
      // Spread over many addresses, the subject's ceiling refuses the failing addresses only.
      for (let i = 0; i < 6; i++) await limiter.recordFailure({ subject: 'victim', address: `192.0.2.${i}` });
      assert.equal((await limiter.check({ subject: 'victim', address: '192.0.2.0' })).rule, 'subject');
      assert.equal((await limiter.check(owner)).blocked, false, 'an address with a clean record still gets through');
      now += 60_000;
      assert.equal((await limiter.check(attacker)).blocked, false, 'the window ended by the injected clock');
    });

    it('limiter: unknown subjects count per address; the address ceiling covers everything', async () => {
      const now = 1_900_000_000_000;
      const limiter = new FailureLimiter({ name: 't', store: store(), log: silent, limits: LIMITS, now: () => now });
      for (let i = 0; i < 3; i++) await limiter.recordFailure({ subject: null, address: '203.0.113.9' });
      assert.equal((await limiter.check({ subject: null, address: '203.0.113.9' })).rule, 'unknown');
      assert.equal((await limiter.check({ subject: 'known', address: '203.0.113.9' })).blocked, false);
      for (let i = 0; i < 7; i++) await limiter.recordFailure({ subject: `s${i}`, address: '203.0.113.9' });
      assert.equal((await limiter.check({ subject: 'known', address: '203.0.113.9' })).rule, 'address');
      assert.equal((await limiter.check({ subject: 'known', address: '203.0.113.10' })).blocked, false);
    });

    it('limiter: a success clears the pair', async () => {
      const limiter = new FailureLimiter({ name: 't', store: store(), log: silent, limits: LIMITS, now: () => 1_900_000_000_000 });
      const a = { subject: 'x', address: '10.0.0.1' };
      await limiter.recordFailure(a);
      await limiter.recordFailure(a);
      const verdict = await limiter.check(a);
      assert.equal(verdict.pairFailures, 2);
      await limiter.recordSuccess(a, verdict);
      assert.equal((await limiter.check(a)).pairFailures, 0);
    });
  });
}

describe('limiter with an unavailable store', () => {
  it('lets requests through (fails open) and logs', async () => {
    const broken: FailureStore = {
      increment: () => Promise.reject(new Error('down')),
      peekMany: () => Promise.reject(new Error('down')),
      reset: () => Promise.reject(new Error('down')),
      close: async () => undefined,
    };
    const lines: string[] = [];
    const limiter = new FailureLimiter({ name: 't', store: broken, log: pino({ level: 'warn' }, { write: (l: string) => void lines.push(l) }), limits: LIMITS });
    await limiter.recordFailure({ subject: 'x', address: '10.0.0.9' });
    assert.equal((await limiter.check({ subject: 'x', address: '10.0.0.9' })).blocked, false);
    assert.equal(lines.length, 2);
  });
});
