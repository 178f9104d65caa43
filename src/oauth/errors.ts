/**
 * One error class per RFC 6749 5.2 error code, each with its HTTP status, and the single serializer that
 * turns any error raised by the token endpoint into an RFC body. 4xx details are shown; anything else
 * becomes a bare `server_error` so nothing internal leaks.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { RepeatedHeaderError } from '../http-headers/repeated-headers.js';
import { isDatabaseUnavailable, OUTAGE_RETRY_AFTER_SECONDS } from '../storage/database-availability.js';
import { localizeFor } from './localize.js';
import { oauthMessages, type MessageParams, type OAuthMessageKey } from './messages.js';
import type { OAuthErrorCode } from './token/token-schema.js';

export type { OAuthErrorCode };

/** Base of every token endpoint error: an RFC 6749 code, a status and a translatable description. */
export abstract class OAuthError extends Error {
  abstract readonly code: OAuthErrorCode;
  abstract readonly status: number;
  readonly headers: Record<string, string> = {};

  constructor(
    readonly messageKey: OAuthMessageKey,
    readonly params: MessageParams = {},
  ) {
    super(messageKey);
  }
}

/** 400: the request is malformed (missing or repeated parameter, wrong content type, two auth methods). */
export class InvalidRequest extends OAuthError {
  override name = 'InvalidRequest';
  readonly code = 'invalid_request';
  readonly status = 400;
}

/**
 * 401: client authentication failed. When the client used HTTP Basic, RFC 6749 5.2 requires a
 * `WWW-Authenticate` challenge for the same scheme.
 */
export class InvalidClient extends OAuthError {
  override name = 'InvalidClient';
  readonly code = 'invalid_client';
  readonly status = 401;

  constructor(messageKey: OAuthMessageKey, options: { basic: boolean; params?: MessageParams }) {
    super(messageKey, options.params);
    if (options.basic) this.headers['WWW-Authenticate'] = 'Basic realm="certdesk"';
  }
}

/** 400: a grant type other than client_credentials. */
export class UnsupportedGrantType extends OAuthError {
  override name = 'UnsupportedGrantType';
  readonly code = 'unsupported_grant_type';
  readonly status = 400;
}

/** 400: the requested scope is malformed or not a subset of the client's scopes. */
export class InvalidScope extends OAuthError {
  override name = 'InvalidScope';
  readonly code = 'invalid_scope';
  readonly status = 400;
}

/**
 * 429: too many failed authentications for this client id or source address. RFC 6749 has no code
 * for it; the body keeps the RFC shape with `invalid_client` so OAuth libraries surface it as an
 * authentication failure, and `Retry-After` says when to try again.
 */
export class TooManyFailedAttempts extends OAuthError {
  override name = 'TooManyFailedAttempts';
  readonly code = 'invalid_client';
  readonly status = 429;

  constructor(retryAfterSeconds: number) {
    super(oauthMessages.tooManyAttempts);
    this.headers['Retry-After'] = String(Math.max(1, Math.ceil(retryAfterSeconds)));
  }
}

/**
 * 503: the database cannot be reached. `temporarily_unavailable` is RFC 6749's code for exactly this
 * (4.1.2.1); `Retry-After` says when to try again.
 */
export class TemporarilyUnavailable extends OAuthError {
  override name = 'TemporarilyUnavailable';
  readonly code = 'temporarily_unavailable';
  readonly status = 503;

  constructor() {
    super(oauthMessages.temporarilyUnavailable);
    this.headers['Retry-After'] = String(OUTAGE_RETRY_AFTER_SECONDS);
  }
}

/** Fastify's own 4xx errors (unsupported media type, body too large, bad encoding) carry a statusCode. */
function isClientError(err: unknown): boolean {
  const status = (err as { statusCode?: unknown } | null)?.statusCode;
  return typeof status === 'number' && status >= 400 && status < 500;
}

/**
 * Writes the RFC 6749 5.2 body for any error. Fastify's own client errors become `invalid_request`;
 * anything unexpected is logged and answered as `server_error` without detail.
 */
export function sendOAuthError(err: unknown, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  // Also when a shared hook refused before the endpoint's own no-store hook ran.
  reply.header('Cache-Control', 'no-store').header('Pragma', 'no-cache');
  let error: OAuthError;
  if (err instanceof OAuthError) {
    error = err;
  } else if (err instanceof RepeatedHeaderError) {
    error = new InvalidRequest(oauthMessages.repeatedHeader, { name: err.header });
  } else if (isDatabaseUnavailable(err)) {
    // Logged once per outage by the availability monitor, not once per request.
    error = new TemporarilyUnavailable();
  } else if (isClientError(err)) {
    error = new InvalidRequest(oauthMessages.malformedBody);
  } else {
    request.log.error({ err }, 'token endpoint failed');
    request.server.metrics?.recordTokenRefused('server_error');
    const description = localizeFor(request, reply, oauthMessages.serverError);
    return reply.code(500).type('application/json; charset=utf-8').send({ error: 'server_error', error_description: description });
  }
  request.server.metrics?.recordTokenRefused(error.code);
  const description = localizeFor(request, reply, error.messageKey, error.params);
  reply.code(error.status).headers(error.headers).type('application/json; charset=utf-8');
  return reply.send({ error: error.code, error_description: description });
}
