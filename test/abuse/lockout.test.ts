/**
 * Brute-force limits never lock out somebody else (issue 8 item 3), and the client address comes from a
 * count of trusted proxies (item 4). The real application (buildApp) on PGlite with the standard
 * fixture; the failure store is Redis when TEST_REDIS_URL is set, else in memory; the limiters' clock is
 * injected, so lockout expiry is tested without sleeping.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import pino from 'pino';
import { loadConfig } from '../../src/config.js';
import { buildTestApp } from '../helpers/app.js';
import { createBruteForceLimiters, MemoryFailureStore, RedisFailureStore, SIGN_IN_LIMITS, type FailureStore, type RefusalEvent } from '../../src/rate-limit/index.js';
import type { DatabaseHandle } from '../../src/storage/database.js';
import { openTestPglite } from '../helpers/database.js';
import { loadStandardFixture, temporaryObjectStorage, USERS, removeTemporaryObjectStorages } from '../helpers/fixtures.js';
import { signIn } from '../web/web-test-helpers.js';

const redisUrl = process.env.TEST_REDIS_URL;
const silent = pino({ level: 'silent' });

function newStore(prefix = `certdesk-test:${randomUUID()}:`): FailureStore {
  return redisUrl ? new RedisFailureStore(redisUrl, prefix) : new MemoryFailureStore();
}

class Clock {
  now = Date.UTC(2026, 5, 1, 12);
  advance(ms: number): void {
    this.now += ms;
  }
}

interface Instance {
  app: FastifyInstance;
  clock: Clock;
  refusals: RefusalEvent[];
}

async function instance(database: DatabaseHandle, dir: string, store: FailureStore, env: Record<string, string> = {}): Promise<Instance> {
  const clock = new Clock();
  // Sign-in's shape with small numbers, so the test spends few password hashes.
  const limiters = createBruteForceLimiters({
    store,
    log: silent,
    now: () => clock.now,
    signInLimits: { ...SIGN_IN_LIMITS, pair: { ...SIGN_IN_LIMITS.pair, max: 3 }, subject: { ...SIGN_IN_LIMITS.subject, max: 6 } },
  });
  const refusals: RefusalEvent[] = [];
  limiters.onRefused((e) => refusals.push(e));
  const config = loadConfig({ CERTDESK_ENV: 'test', LOG_LEVEL: 'silent', DATA_DIR: dir, OBJECT_STORAGE_DIR: dir, TRUSTED_PROXY_HOPS: '1', ...env });
  const app = await buildTestApp({ config, database, limiters });
  // The services close only the limiters they built themselves; these hold a Redis connection that would keep the process alive.
  app.addHook('onClose', () => limiters.close());
  await app.ready();
  return { app, clock, refusals };
}

/** A token request arriving through the one trusted load balancer from `client` (what the LB appends). */
function tokenRequest(app: FastifyInstance, clientId: string, secret: string, client: string, forged?: string): Promise<LightMyRequestResponse> {
  return app.inject({
    method: 'POST',
    url: '/oauth2/token',
    remoteAddress: '10.0.0.254',
    headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-forwarded-for': forged ? `${forged}, ${client}` : client },
    payload: new URLSearchParams({ grant_type: 'client_credentials', client_id: clientId, client_secret: secret }).toString(),
  });
}

describe('brute-force limits lock out only the attacker', () => {
  let database: DatabaseHandle;
  let dir: string;
  before(async () => {
    database = await openTestPglite();
    const storage = temporaryObjectStorage();
    dir = storage.dir;
    await loadStandardFixture(database, storage.storage);
  });
  after(() => database.close());

  it('token endpoint: the victim client keeps getting tokens while another address hammers it', async () => {
    const { app, clock, refusals } = await instance(database, dir, newStore());
    try {
      const victim = USERS.viewer;
      const statuses: number[] = [];
      for (let i = 0; i < 150; i++) {
        statuses.push((await tokenRequest(app, victim.clientId, `wrong-${i}`, '203.0.113.66')).statusCode);
        if (i % 25 === 0) assert.equal((await tokenRequest(app, victim.clientId, victim.clientSecret, '198.51.100.10')).statusCode, 200, `victim at attempt ${i}`);
      }
      assert.deepEqual(statuses.slice(0, 10), Array(10).fill(401));
      assert.ok(statuses.slice(10).every((s) => s === 429), 'the attacker is refused after 10 failures');
      // Even the right secret from the attacker's address is refused, with Retry-After and an RFC body.
      const refused = await tokenRequest(app, victim.clientId, victim.clientSecret, '203.0.113.66');
      assert.equal(refused.statusCode, 429);
      assert.deepEqual(refused.json(), { error: 'invalid_client', error_description: 'Too many failed attempts; retry later' });
      assert.equal(refused.headers['retry-after'], '300');
      assert.equal(refused.headers['cache-control'], 'no-store');
      assert.ok(refusals.some((r) => r.limiter === 'token_endpoint' && r.rule === 'pair'));
      assert.equal((await tokenRequest(app, victim.clientId, victim.clientSecret, '198.51.100.10')).statusCode, 200);
      // The window ends by the injected clock.
      clock.advance(5 * 60_000);
      assert.equal((await tokenRequest(app, victim.clientId, victim.clientSecret, '203.0.113.66')).statusCode, 200);
    } finally {
      await app.close();
    }
  });

  it('token endpoint: guessing spread over many addresses trips the client ceiling only for failing addresses', async () => {
    const { app } = await instance(database, dir, newStore());
    try {
      const victim = USERS.editor;
      for (let i = 0; i < 100; i++) assert.equal((await tokenRequest(app, victim.clientId, 'x', `192.0.2.${i}`)).statusCode, 401);
      assert.equal((await tokenRequest(app, victim.clientId, 'x', '192.0.2.7')).statusCode, 429, 'a failing address is refused past the ceiling');
      assert.equal((await tokenRequest(app, victim.clientId, victim.clientSecret, '198.51.100.20')).statusCode, 200, 'a clean address is not');
    } finally {
      await app.close();
    }
  });

  it('token endpoint: hammering unknown client ids from one address refuses only unknown ids there', async () => {
    const { app, refusals } = await instance(database, dir, newStore());
    try {
      for (let i = 0; i < 10; i++) assert.equal((await tokenRequest(app, `guess-${i}`, 'x', '203.0.113.7')).statusCode, 401);
      assert.equal((await tokenRequest(app, 'guess-next', 'x', '203.0.113.7')).statusCode, 429);
      assert.ok(refusals.some((r) => r.rule === 'unknown'));
      const victim = USERS.admin;
      assert.equal((await tokenRequest(app, victim.clientId, victim.clientSecret, '203.0.113.7')).statusCode, 200, 'a known client behind the same address');
      assert.equal((await tokenRequest(app, victim.clientId, victim.clientSecret, '198.51.100.30')).statusCode, 200);
    } finally {
      await app.close();
    }
  });

  it("trusted proxy hops: a caller's own X-Forwarded-For neither rotates its address nor frames another", async () => {
    const settings: Array<Record<string, string>> = [{ TRUSTED_PROXY_HOPS: '1' }, { TRUSTED_PROXY_HOPS: '', TRUST_PROXY: 'true' }];
    for (const env of settings) {
      const { app } = await instance(database, dir, newStore(), env);
      try {
        const victimAddress = '198.51.100.40';
        for (let i = 0; i < 10; i++) {
          // The attacker (really 203.0.113.9) claims a new address each time, or the victim's.
          const forged = i % 2 === 0 ? `100.64.0.${i}` : victimAddress;
          assert.equal((await tokenRequest(app, `guess-${i}`, 'x', '203.0.113.9', forged)).statusCode, 401);
        }
        assert.equal((await tokenRequest(app, 'guess-x', 'x', '203.0.113.9', '100.64.9.9')).statusCode, 429, JSON.stringify(env));
        assert.equal((await tokenRequest(app, 'guess-y', 'x', victimAddress)).statusCode, 401, 'the victim address was never charged');
      } finally {
        await app.close();
      }
    }
  });

  it('sign-in: the account owner signs in while an attacker elsewhere hammers the account', async () => {
    const { app, clock } = await instance(database, dir, newStore());
    try {
      const from = (ip: string) => ({ 'x-forwarded-for': ip });
      const owner = USERS.loner;
      for (let i = 0; i < 3; i++) assert.equal((await signIn(app, owner.email, `wrong-${i}`, from('203.0.113.50'))).response.statusCode, 401);
      const locked = await signIn(app, owner.email, owner.password, from('203.0.113.50'));
      assert.equal(locked.response.statusCode, 429);
      assert.equal(locked.response.headers['retry-after'], '900');
      assert.equal((await signIn(app, owner.email, owner.password, from('198.51.100.50'))).response.statusCode, 303, 'the owner from home');
      // Spread over addresses: past the account ceiling the failing addresses are refused, the owner is not.
      for (let i = 0; i < 6; i++) await signIn(app, owner.email, 'x', from(`192.0.2.${100 + i}`));
      assert.equal((await signIn(app, owner.email, owner.password, from('192.0.2.100'))).response.statusCode, 429);
      assert.equal((await signIn(app, owner.email, owner.password, from('198.51.100.51'))).response.statusCode, 303);
      // Another account from the attacker's address is not locked by the first account's failures.
      assert.equal((await signIn(app, USERS.viewer.email, USERS.viewer.password, from('203.0.113.50'))).response.statusCode, 303);
      clock.advance(15 * 60_000);
      assert.equal((await signIn(app, owner.email, owner.password, from('203.0.113.50'))).response.statusCode, 303);
    } finally {
      await app.close();
    }
  });

  it('one failure store: failures counted by one instance refuse on another (token endpoint and sign-in)', async () => {
    const prefix = `certdesk-test:${randomUUID()}:`;
    const shared = redisUrl ? null : new MemoryFailureStore();
    const one = await instance(database, dir, shared ?? newStore(prefix));
    const two = await instance(database, dir, shared ?? newStore(prefix));
    try {
      for (let i = 0; i < 5; i++) await tokenRequest(one.app, USERS.viewer.clientId, 'x', '203.0.113.80');
      for (let i = 0; i < 5; i++) await tokenRequest(two.app, USERS.viewer.clientId, 'x', '203.0.113.80');
      assert.equal((await tokenRequest(one.app, USERS.viewer.clientId, USERS.viewer.clientSecret, '203.0.113.80')).statusCode, 429);
      assert.equal((await tokenRequest(two.app, USERS.viewer.clientId, USERS.viewer.clientSecret, '203.0.113.80')).statusCode, 429);
      const from = { 'x-forwarded-for': '203.0.113.81' };
      await signIn(one.app, USERS.editor.email, 'x', from);
      await signIn(two.app, USERS.editor.email, 'x', from);
      await signIn(one.app, USERS.editor.email, 'x', from);
      assert.equal((await signIn(two.app, USERS.editor.email, USERS.editor.password, from)).response.statusCode, 429);
    } finally {
      await one.app.close();
      await two.app.close();
    }
  });
});

// The temporary object storage folders this file made (test/helpers/fixtures.ts).
after(removeTemporaryObjectStorages);
