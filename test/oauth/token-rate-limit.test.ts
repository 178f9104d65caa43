/**
 * The token endpoint's brute-force guard through HTTP: 429 with Retry-After once a client id has too many
 * failures, while nobody can lock out someone else: a client's failures do not block other clients, and
 * an address guessing client ids is refused for unknown ids only (Redis store when TEST_REDIS_URL is set,
 * else in-process). The full rule set is exercised in test/abuse/lockout.test.ts.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import pino from 'pino';
import { createBruteForceLimiters, MemoryFailureStore, RedisFailureStore } from '../../src/rate-limit/index.js';
import { describeOnEachDatabase } from '../helpers/database.js';
import { buildOAuthTestApp, form, FORM_HEADERS, seedClient, type SeededClient } from './oauth-harness.js';

const redisUrl = process.env.TEST_REDIS_URL;
const MINUTE = 60_000;

describeOnEachDatabase('token endpoint brute-force guard', (getDb) => {
  let app: FastifyInstance;
  let client: SeededClient;
  before(async () => {
    const store = redisUrl ? new RedisFailureStore(redisUrl, `certdesk-test:${randomUUID()}:`) : new MemoryFailureStore();
    const limiters = createBruteForceLimiters({
      store,
      log: pino({ level: 'silent' }),
      tokenEndpointLimits: {
        pair: { max: 2, windowMs: MINUTE },
        subject: { max: 3, windowMs: MINUTE },
        address: { max: 50, windowMs: MINUTE },
        unknownPerAddress: { max: 3, windowMs: MINUTE },
      },
    });
    app = await buildOAuthTestApp(getDb(), { limiters });
    client = await seedClient(getDb().db);
  });
  after(() => app.close());

  const attempt = (clientId: string, secret: string, remoteAddress: string) =>
    app.inject({
      method: 'POST',
      url: '/oauth2/token',
      remoteAddress,
      headers: FORM_HEADERS,
      payload: form({ grant_type: 'client_credentials', client_id: clientId, client_secret: secret }),
    });

  it('answers 429 with Retry-After after too many failures for a client, even with the right secret, to addresses that failed', async () => {
    for (let i = 0; i < 3; i++) assert.equal((await attempt(client.clientId, `wrong-${i}`, `198.51.100.${i}`)).statusCode, 401);
    // Past the client's ceiling, an address that failed for it is refused ...
    const res = await attempt(client.clientId, client.clientSecret, '198.51.100.0');
    assert.equal(res.statusCode, 429);
    assert.deepEqual(res.json(), { error: 'invalid_client', error_description: 'Too many failed attempts; retry later' });
    const retryAfter = Number(res.headers['retry-after']);
    assert.ok(retryAfter >= 1 && retryAfter <= 60, `Retry-After ${retryAfter}`);
    assert.equal(res.headers['cache-control'], 'no-store');
    assert.equal(res.headers['pragma'], 'no-cache');
    // ... while the owner, from an address with a clean record, still gets a token.
    assert.equal((await attempt(client.clientId, client.clientSecret, '198.51.100.200')).statusCode, 200);
  });

  it('refuses an address that guesses client ids, for unknown ids only: a real client there still gets a token', async () => {
    const other = await seedClient(getDb().db);
    for (let i = 0; i < 3; i++) assert.equal((await attempt(`guess-${i}`, 'x', '203.0.113.7')).statusCode, 401);
    assert.equal((await attempt('guess-next', 'x', '203.0.113.7')).statusCode, 429);
    assert.equal((await attempt('guess-next', 'x', '203.0.113.8')).statusCode, 401, 'other addresses unaffected');
    assert.equal((await attempt(other.clientId, other.clientSecret, '203.0.113.7')).statusCode, 200, 'nobody locks out a known client');
  });
});
