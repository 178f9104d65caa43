/**
 * The token service and bearer verification as one Fastify plugin: signing keys (created on first
 * start, refreshed periodically), `POST /oauth2/token`, the JWKS and RFC 8414 metadata, and the
 * `app.oauth` services that `requireScope` uses on `/v1` routes.
 *
 * The plugin is not encapsulated (like fastify-plugin), so `app.oauth` and `request.principal` are
 * visible to sibling plugins; the token endpoint inside it is encapsulated.
 *
 * @example
 * await app.register(oauthPlugin);
 * app.get('/v1/things', { onRequest: requireScope(SCOPES.read) }, async (request) => request.principal);
 */
import type { FastifyPluginAsync } from 'fastify';
import type { Clock } from '../clock.js';
import type { Principal } from '../domain/principal.js';
import { ClientAccessCache, DEFAULT_CLIENT_ACCESS_TTL_MS } from './client-access-cache.js';
import { discoveryRoutes } from './discovery.js';
import { KeyStore } from './keys/key-store.js';
import { LastUsedRecorder } from './last-used.js';
import { VerifiedTokenCache } from './bearer/verified-token-cache.js';
import type { FailureLimiter } from '../rate-limit/index.js';
import type { OAuthServices } from './services.js';
import { tokenEndpoint } from './token/token-endpoint.js';

export { requireScope, authenticateBearer, authenticateBearerFromCache } from './bearer/bearer-auth.js';
export type { OAuthServices } from './services.js';
export { TOKEN_PATH } from './token/token-endpoint.js';
export { JWKS_PATH, METADATA_PATH } from './discovery.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** Token service state shared by the token endpoint and bearer verification. */
    oauth: OAuthServices;
  }
  interface FastifyRequest {
    /** The resolved caller; set by `requireScope` (or a web session) before the handler runs. */
    principal: Principal;
  }
}

export interface OAuthPluginOptions {
  /** How long a client → user resolution is reused (≤ 5 s). Tests shorten it. */
  clientAccessTtlMs?: number;
  /** How often signing keys are re-read from the database. Default 60 s. */
  keyRefreshIntervalMs?: number;
  /** The token endpoint's brute-force guard; default `app.limiters.tokenEndpoint` (built by buildApp). */
  limiter?: FailureLimiter;
  /** Minimum time between two `last_used_at` writes for one client. Default 60 s. */
  lastUsedIntervalMs?: number;
  /** Time for the client cache, in-process failure windows and last_used_at throttling (tests move it). */
  clock?: Clock;
}

const oauth: FastifyPluginAsync<OAuthPluginOptions> = async (app, options) => {
  const { config, database } = app.deps;
  // Built first: it validates its TTL before anything starts a timer.
  const clients = new ClientAccessCache(database.db, options.clientAccessTtlMs ?? DEFAULT_CLIENT_ACCESS_TTL_MS, options.clock);
  const keys = new KeyStore({
    db: database.db,
    masterKey: config.masterKey,
    accessTokenTtlSeconds: config.accessTokenTtlSeconds,
    env: config.env,
    log: app.log,
    refreshIntervalMs: options.keyRefreshIntervalMs,
  });
  await keys.start();
  const services: OAuthServices = {
    tokens: { issuer: config.issuerUrl, audience: config.tokenAudience, ttlSeconds: config.accessTokenTtlSeconds },
    keys,
    clients,
    limiter: options.limiter ?? app.limiters.tokenEndpoint,
    lastUsed: new LastUsedRecorder(database.db, app.log, options.lastUsedIntervalMs, options.clock),
    verifiedTokens: new VerifiedTokenCache(),
  };
  app.decorate('oauth', services);
  // Another feature (web sessions) may have declared the decorator already; one is enough.
  if (!app.hasRequestDecorator('principal')) app.decorateRequest('principal', null as unknown as Principal);
  // The failure store belongs to buildApp (shared with web sign-in) and is closed there.
  app.addHook('onClose', async () => {
    keys.stop();
    await services.lastUsed.settled();
  });
  await app.register(tokenEndpoint, { services });
  await app.register(discoveryRoutes, { services });
};

// Fastify's documented opt-out of encapsulation (what fastify-plugin sets).
(oauth as unknown as Record<symbol, boolean>)[Symbol.for('skip-override')] = true;

/** The token service plugin; register once on the root instance after `deps` is decorated. */
export const oauthPlugin = oauth;
