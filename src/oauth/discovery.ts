/**
 * Public documents of the token service: the JWKS (`/.well-known/jwks.json`, active and recently
 * retired public keys) and the RFC 8414 authorization server metadata.
 */
import type { FastifyPluginAsync } from 'fastify';
import { publicReadPreflight, setPublicReadCors } from '../http-headers/public-read-cors.js';
import { ALL_SCOPES } from '../contract/schemas.js';
import type { OAuthServices } from './services.js';
import { CLIENT_AUTH_METHODS } from './token/client-authentication.js';
import { TOKEN_PATH } from './token/token-endpoint.js';

export const JWKS_PATH = '/.well-known/jwks.json';
export const METADATA_PATH = '/.well-known/oauth-authorization-server';

/** RFC 8414 metadata for an issuer. */
export function authorizationServerMetadata(issuer: string): Record<string, unknown> {
  return {
    issuer,
    token_endpoint: `${issuer}${TOKEN_PATH}`,
    jwks_uri: `${issuer}${JWKS_PATH}`,
    grant_types_supported: ['client_credentials'],
    token_endpoint_auth_methods_supported: [...CLIENT_AUTH_METHODS],
    scopes_supported: [...ALL_SCOPES],
    response_types_supported: [],
  };
}

export const discoveryRoutes: FastifyPluginAsync<{ services: OAuthServices }> = async (app, { services }) => {
  const metadata = authorizationServerMetadata(services.tokens.issuer);
  app.get(JWKS_PATH, async (_request, reply) => {
    // Short: verifiers elsewhere see a rotation within a minute (and should refetch on an unknown kid).
    reply.header('Cache-Control', 'public, max-age=60');
    // Other sites verify certificates in the browser against it (DECISIONS 9).
    setPublicReadCors(reply);
    return services.keys.current().jwks;
  });
  publicReadPreflight(app, JWKS_PATH);
  app.get(METADATA_PATH, async (_request, reply) => {
    reply.header('Cache-Control', 'public, max-age=3600');
    return metadata;
  });
};
