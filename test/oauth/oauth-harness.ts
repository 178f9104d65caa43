/**
 * Test support for the token service: configuration, rows (organization, user, API client) and a
 * minimal application with the OAuth plugin and tiny protected routes (the real /v1 routes belong to
 * another feature). Tests call it in-process with `app.inject`.
 */
import { randomUUID } from 'node:crypto';
import Fastify, { type FastifyInstance } from 'fastify';
import { loadConfig, type Config } from '../../src/config.js';
import { SCOPES } from '../../src/contract/schemas.js';
import { createApiClient } from '../../src/domain/api-clients/index.js';
import { hashClientSecret } from '../../src/domain/api-clients/client-credentials.js';
import type { Executor, DatabaseHandle } from '../../src/storage/database.js';
import { oauthPlugin, requireScope, startOAuthServices, type OAuthTuning } from '../../src/oauth/index.js';
import { createBruteForceLimiters, MemoryFailureStore, type BruteForceLimiters } from '../../src/rate-limit/index.js';

export const ISSUER = 'https://auth.certdesk.test';
export const AUDIENCE = 'https://api.certdesk.test/v1';

export function testConfig(overrides: Record<string, string> = {}): Config {
  return loadConfig({ CERTDESK_ENV: 'test', LOG_LEVEL: 'silent', ISSUER_URL: ISSUER, TOKEN_AUDIENCE: AUDIENCE, ...overrides });
}

export interface SeededClient {
  organizationId: string;
  userId: string;
  email: string;
  clientId: string;
  clientSecret: string;
}

/** An organization with one user (admin or not) and, for that user, a client with the given scopes. */
export async function seedClient(
  db: Executor,
  options: { scopes?: string[]; isAdmin?: boolean; clientId?: string; clientSecret?: string } = {},
): Promise<SeededClient> {
  const organizationId = randomUUID();
  const userId = randomUUID();
  const email = `user-${userId.slice(0, 8)}@example.test`;
  await db.insertInto('organizations').values({ id: organizationId, name: `Org ${organizationId.slice(0, 8)}` }).execute();
  await db
    .insertInto('users')
    .values({ id: userId, organization_id: organizationId, email, email_key: email, username: 'Tester', is_admin: options.isAdmin ?? false })
    .execute();
  const scopes = options.scopes ?? [SCOPES.read];
  if (options.clientId && options.clientSecret) {
    // A chosen secret (special characters for the Basic encoding tests), stored hashed as usual.
    await db
      .insertInto('api_clients')
      .values({
        client_id: options.clientId,
        organization_id: organizationId,
        user_id: userId,
        name: 'chosen',
        secret_hash: hashClientSecret(options.clientSecret),
        scopes,
      })
      .execute();
    return { organizationId, userId, email, clientId: options.clientId, clientSecret: options.clientSecret };
  }
  const { client, clientSecret } = await createApiClient(db, { organizationId, userId, name: 'test client', scopes });
  return { organizationId, userId, email, clientId: client.clientId, clientSecret };
}

/** The OAuth plugin on a bare Fastify instance, with `/test/read` and `/test/write` protected routes. */
export async function buildOAuthTestApp(
  database: DatabaseHandle,
  options: OAuthTuning & { config?: Config; limiters?: BruteForceLimiters } = {},
): Promise<FastifyInstance> {
  const { config = testConfig(), limiters, ...tuning } = options;
  const app = Fastify({ logger: false });
  // What the composition root does: the brute-force guards over one store (in memory unless the test brings its own).
  const guards = limiters ?? createBruteForceLimiters({ store: new MemoryFailureStore(), log: app.log });
  const services = await startOAuthServices({ db: database.db, config, log: app.log, limiter: guards.tokenEndpoint, tuning });
  app.addHook('onClose', async () => {
    await services.stop();
    await guards.close();
  });
  await app.register(oauthPlugin, { services });
  const echo = async (request: { principal: unknown }) => ({ principal: request.principal });
  app.get('/test/read', { onRequest: requireScope(SCOPES.read) }, echo);
  app.get('/test/write', { onRequest: requireScope(SCOPES.write) }, echo);
  // A route validating a required query parameter: authentication must come first (401, not 400/422).
  app.get(
    '/test/validated',
    {
      onRequest: requireScope(SCOPES.read),
      schema: { querystring: { type: 'object', required: ['project_id'], properties: { project_id: { type: 'string' } } } },
    },
    echo,
  );
  app.get('/test/open', async () => ({ ok: true }));
  await app.ready();
  return app;
}

/** A form body from pairs (pairs allow repeated names). */
export function form(pairs: Array<[string, string]> | Record<string, string>): string {
  const list = Array.isArray(pairs) ? pairs : Object.entries(pairs);
  return list.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join('&');
}

/** HTTP Basic credentials per RFC 6749 2.3.1: each part form-urlencoded, then base64. */
export function basic(clientId: string, clientSecret: string): string {
  const enc = (s: string) => encodeURIComponent(s).replace(/%20/g, '+');
  return `Basic ${Buffer.from(`${enc(clientId)}:${enc(clientSecret)}`).toString('base64')}`;
}

export const FORM_HEADERS = { 'content-type': 'application/x-www-form-urlencoded' } as const;

/** Obtains a token with client_secret_post; fails the test if the endpoint refuses. */
export async function obtainToken(app: FastifyInstance, client: SeededClient, scope?: string): Promise<string> {
  const res = await app.inject({
    method: 'POST',
    url: '/oauth2/token',
    headers: FORM_HEADERS,
    payload: form({ grant_type: 'client_credentials', client_id: client.clientId, client_secret: client.clientSecret, ...(scope ? { scope } : {}) }),
  });
  if (res.statusCode !== 200) throw new Error(`token request failed: ${res.statusCode} ${res.body}`);
  return (res.json() as { access_token: string }).access_token;
}
