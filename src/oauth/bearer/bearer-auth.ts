/**
 * Bearer token verification for `/v1` routes (RFC 6750). `requireScope(scope)` returns an `onRequest`
 * hook, so authentication runs before body parsing and parameter validation: a request with neither a
 * token nor a required parameter is 401, not 422.
 *
 * Answers (docs/oauth.md, RFC 6750 3.1):
 * - no Authorization header, or one with another scheme (the client used an unsupported method, so no
 *   error code): 401 `{"detail": "Not authenticated"}`, `WWW-Authenticate: Bearer`;
 * - a token that does not verify, has expired or belongs to a revoked client or a user who left:
 *   401, `WWW-Authenticate: Bearer error="invalid_token", error_description="..."`;
 * - a valid token without the route's scope: 403, `Bearer error="insufficient_scope", scope="..."`.
 *
 * The `detail` is in the caller's language; the header's `error_description` stays English because
 * header values must be ASCII.
 */
import type { FastifyReply, FastifyRequest, onRequestHookHandler } from 'fastify';
import type { ClientAccessRecord } from '../../domain/users/user-access.repository.js';
import { principalFor, type Principal } from '../../domain/principal.js';
import { TokenRejected, verifyAccessToken, type VerifiedToken } from '../access-token.js';
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

// The last outcome per verified token, reused while the client's cached resolution is the same object:
// a client calling with one token gets one (frozen) principal per cache period, not one per request.
const outcomes = new WeakMap<VerifiedToken, { access: ClientAccessRecord; outcome: Outcome }>();

function decide(verified: VerifiedToken, access: ClientAccessRecord | undefined): Outcome {
  if (!access || access.revoked || !access.userIsMember) return invalidToken(oauthMessages.tokenRevoked);
  const memo = outcomes.get(verified);
  if (memo && memo.access === access) return memo.outcome;
  const outcome = principalOutcome(verified, access);
  outcomes.set(verified, { access, outcome });
  return outcome;
}

function principalOutcome(verified: VerifiedToken, access: ClientAccessRecord): Outcome {
  // Scopes taken away from the client since the token was issued are gone for its tokens too.
  const scopes = verified.scopes.filter((s) => access.scopes.includes(s));
  return { ok: true, principal: principalFor(access, access.clientId, scopes) };
}

/** The token of an Authorization header, or the outcome that refuses the header. */
function tokenOf(authorization: string | undefined): string | Outcome {
  if (!authorization || !/^Bearer(\s|$)/i.test(authorization)) {
    return { ok: false, status: 401, challenge: 'Bearer', messageKey: oauthMessages.notAuthenticated };
  }
  return BEARER.exec(authorization)?.[1] ?? invalidToken(oauthMessages.tokenInvalid);
}

/** The hot path's cheaper split: `Bearer <token>` exactly (anything else goes the full way). */
function plainTokenOf(authorization: string | undefined): string | undefined {
  if (authorization === undefined || authorization.length < 8 || authorization.charCodeAt(6) !== 32) return undefined;
  const scheme = authorization.slice(0, 6);
  return scheme === 'Bearer' || scheme.toLowerCase() === 'bearer' ? authorization.slice(7) : undefined;
}

/**
 * The outcome when it can be decided from what is cached (a token verified before whose client was
 * resolved within the cache TTL); undefined when parsing, a verification or a query is needed.
 */
export function authenticateBearerFromCache(services: OAuthServices, authorization: string | undefined): Outcome | undefined {
  // Only an exact token verified before can hit, so no syntax check is needed on this path.
  const token = plainTokenOf(authorization);
  if (token === undefined) return undefined;
  const verified = services.verifiedTokens.get(token);
  if (!verified) return undefined;
  const access = services.clients.peek(verified.clientId);
  return access ? decide(verified, access) : undefined;
}

/** Verifies the request's bearer token and resolves the acting user; never throws for a bad token. */
export async function authenticateBearer(services: OAuthServices, authorization: string | undefined): Promise<Outcome> {
  const token = tokenOf(authorization);
  if (typeof token !== 'string') return token;
  let verified = services.verifiedTokens.get(token);
  if (!verified) {
    try {
      verified = await verifyAccessToken(services.keys, services.tokens, token);
    } catch (err) {
      if (err instanceof TokenRejected) return invalidToken(err.reason === 'expired' ? oauthMessages.tokenExpired : oauthMessages.tokenInvalid);
      throw err;
    }
    services.verifiedTokens.set(token, verified);
  }
  return decide(verified, await services.clients.get(verified.clientId));
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
export function requireScope(...scopes: string[]): onRequestHookHandler {
  const required = scopes.join(' ');
  // Callback style, not async: with a token seen before and a cached client, the whole check runs
  // synchronously, without a promise per request.
  return function bearerAuth(request, reply, done) {
    const finish = (outcome: Outcome): void => {
      if (!outcome.ok) {
        refuse(request, reply, outcome.status, outcome.challenge, outcome.messageKey);
      } else if (!scopes.every((s) => outcome.principal.scopes.includes(s))) {
        refuse(request, reply, 403, `Bearer error="insufficient_scope", scope="${required}"`, oauthMessages.insufficientScope, { scope: required });
      } else {
        request.principal = outcome.principal;
        done();
      }
    };
    const services = request.server.oauth;
    const cached = authenticateBearerFromCache(services, request.headers.authorization);
    if (cached) finish(cached);
    else authenticateBearer(services, request.headers.authorization).then(finish, done);
  };
}
