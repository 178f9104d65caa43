/**
 * Bearer token verification for `/v1` routes (RFC 6750). `requireScope(scope)` returns an `onRequest`
 * hook, so authentication runs before body parsing and parameter validation: a request with neither a
 * token nor a required parameter is 401, not 422.
 *
 * Answers (DECISIONS.md 4, RFC 6750 3.1):
 * - no Authorization header, or one with another scheme (the client used an unsupported method, so no
 *   error code): 401 `{"detail": "Not authenticated"}`, `WWW-Authenticate: Bearer`;
 * - a token that does not verify, has expired or belongs to a revoked client or a user who left:
 *   401, `WWW-Authenticate: Bearer error="invalid_token", error_description="..."`;
 * - a valid token without the route's scope: 403, `Bearer error="insufficient_scope", scope="..."`.
 *
 * The `detail` is in the caller's language; the header's `error_description` stays English because
 * header values must be ASCII.
 */
import type { FastifyReply, FastifyRequest, onRequestAsyncHookHandler } from 'fastify';
import type { Principal } from '../../domain/principal.js';
import { TokenRejected, verifyAccessToken } from '../access-token.js';
import { localizeFor } from '../localize.js';
import { englishMessage, oauthMessages, type MessageParams, type OAuthMessageKey } from '../messages.js';
import type { OAuthServices } from '../services.js';

// RFC 6750 2.1: b64token = 1*( ALPHA / DIGIT / "-" / "." / "_" / "~" / "+" / "/" ) *"="
const BEARER = /^Bearer +([A-Za-z0-9\-._~+/]+=*) *$/i;

type Outcome =
  | { ok: true; principal: Principal }
  | { ok: false; status: 401; challenge: string; messageKey: OAuthMessageKey };

function invalidToken(messageKey: OAuthMessageKey): Outcome {
  return {
    ok: false,
    status: 401,
    challenge: `Bearer error="invalid_token", error_description="${englishMessage(messageKey)}"`,
    messageKey,
  };
}

/** Verifies the request's bearer token and resolves the acting user; never throws for a bad token. */
export async function authenticateBearer(services: OAuthServices, authorization: string | undefined): Promise<Outcome> {
  if (!authorization || !/^Bearer(\s|$)/i.test(authorization)) {
    return { ok: false, status: 401, challenge: 'Bearer', messageKey: oauthMessages.notAuthenticated };
  }
  const token = BEARER.exec(authorization)?.[1];
  if (!token) return invalidToken(oauthMessages.tokenInvalid);
  let verified;
  try {
    verified = await verifyAccessToken(services.keys, services.tokens, token);
  } catch (err) {
    if (err instanceof TokenRejected) return invalidToken(err.reason === 'expired' ? oauthMessages.tokenExpired : oauthMessages.tokenInvalid);
    throw err;
  }
  const access = await services.clients.get(verified.clientId);
  if (!access || access.revoked || !access.userIsMember) return invalidToken(oauthMessages.tokenRevoked);
  // Scopes taken away from the client since the token was issued are gone for its tokens too.
  const current = new Set(access.scopes);
  return {
    ok: true,
    principal: {
      userId: access.userId,
      organizationId: access.organizationId,
      email: access.email,
      emailKey: access.emailKey,
      username: access.username,
      isAdmin: access.isAdmin,
      clientId: access.clientId,
      scopes: verified.scopes.filter((s) => current.has(s)),
    },
  };
}

function refuse(
  request: FastifyRequest,
  reply: FastifyReply,
  status: number,
  challenge: string,
  key: OAuthMessageKey,
  params: MessageParams = {},
): FastifyReply {
  const detail = localizeFor(request, reply, key, params);
  return reply.code(status).header('WWW-Authenticate', challenge).send({ detail });
}

/**
 * An `onRequest` hook admitting only requests whose bearer token grants every scope given; it sets
 * `request.principal`.
 *
 * @example
 * app.get('/v1/orders', { onRequest: requireScope(SCOPES.read) }, async (request) => {
 *   return listOrders(request.principal, ...);
 * });
 */
export function requireScope(...scopes: string[]): onRequestAsyncHookHandler {
  const required = scopes.join(' ');
  return async function bearerAuth(request, reply) {
    const services = request.server.oauth;
    const outcome = await authenticateBearer(services, request.headers.authorization);
    if (!outcome.ok) return refuse(request, reply, outcome.status, outcome.challenge, outcome.messageKey);
    if (!scopes.every((s) => outcome.principal.scopes.includes(s))) {
      return refuse(request, reply, 403, `Bearer error="insufficient_scope", scope="${required}"`, oauthMessages.insufficientScope, {
        scope: required,
      });
    }
    request.principal = outcome.principal;
  };
}
