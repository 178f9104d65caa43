/**
 * The token service and bearer verification as one Fastify plugin: `POST /oauth2/token`, the JWKS and
 * RFC 8414 metadata, and the `app.oauth` services that `requireScope` uses on `/v1` routes. The services
 * themselves (signing keys, client cache, ...) are built by the composition root and handed in.
 *
 * The plugin is not encapsulated (like fastify-plugin), so `app.oauth` and `request.principal` are
 * visible to sibling plugins; the token endpoint inside it is encapsulated.
 *
 * @example
 * await app.register(oauthPlugin, { services: await startOAuthServices({ db, config, log, limiter }) });
 * app.get('/v1/things', { onRequest: requireScope(SCOPES.read) }, async (request) => request.principal);
 */
import type { FastifyPluginAsync } from 'fastify';
import type { Principal } from '../domain/principal.js';
import { discoveryRoutes } from './discovery.js';
import type { OAuthServices } from './services.js';
import { tokenEndpoint } from './token/token-endpoint.js';

export { requireScope, authenticateBearer, authenticateBearerFromCache } from './bearer/bearer-auth.js';
export { startOAuthServices, type OAuthServices, type OAuthTuning } from './services.js';
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
  /** The token service's state, built by the composition root (`startOAuthServices`). */
  services: OAuthServices;
}

const oauth: FastifyPluginAsync<OAuthPluginOptions> = async (app, { services }) => {
  app.decorate('oauth', services);
  // Another feature (web sessions) may have declared the decorator already; one is enough.
  if (!app.hasRequestDecorator('principal')) app.decorateRequest('principal', null as unknown as Principal);
  await app.register(tokenEndpoint, { services });
  await app.register(discoveryRoutes, { services });
};

// Fastify's documented opt-out of encapsulation (what fastify-plugin sets).
(oauth as unknown as Record<symbol, boolean>)[Symbol.for('skip-override')] = true;

/** The token service plugin; register once on the root instance after `deps` is decorated. */
export const oauthPlugin = oauth;
