/**
 * The API's one error serializer. 422: FastAPI's HTTPValidationError listing every failing parameter.
 * Everything else: `{"detail": "<message>"}` in the caller's language. 4xx errors say what went wrong;
 * anything unexpected is logged with the request id and answers a bare 500 that leaks nothing
 * (the `X-Request-Id` header lets an operator find the log line). An unreachable database answers 503
 * with `Retry-After` and is not logged per request.
 */
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../../domain/errors.js';
import type { MessageKey } from '../../i18n/catalogue.js';
import { negotiateLanguage } from '../../i18n/negotiate.js';
import { translate } from '../../i18n/translate.js';
import { isDatabaseUnavailable, OUTAGE_RETRY_AFTER_SECONDS } from '../../storage/database-availability.js';
import { renderValidationIssues } from '../validation/render.js';
import { validationIssuesOf } from '../validation/collect-issues.js';
import type { RouteTable } from './method-not-allowed.js';
import { BASELINE_SECURITY_HEADERS } from './security-headers.js';

/** The catalogue message of a status when the error brings none of its own. */
const STATUS_MESSAGES: Readonly<Record<number, MessageKey>> = {
  400: 'errors.bad_request',
  401: 'errors.not_authenticated',
  403: 'errors.forbidden',
  404: 'errors.not_found',
  405: 'errors.method_not_allowed',
  406: 'errors.not_acceptable',
  413: 'errors.payload_too_large',
  415: 'errors.unsupported_media_type',
  429: 'errors.too_many_requests',
  503: 'errors.service_unavailable',
};

/** The catalogue message of a client error's status (a framework error brings none of its own). */
export function statusMessageKey(status: number): MessageKey {
  return STATUS_MESSAGES[status] ?? 'errors.bad_request';
}

/** `{"detail": "..."}` for a status and message key, in the request's language. */
export function sendDetail(request: FastifyRequest, reply: FastifyReply, status: number, key: MessageKey, vars = {}): FastifyReply {
  return reply.code(status).type('application/json; charset=utf-8').send({ detail: translate(request.lang, key, vars) });
}

function statusOf(error: unknown): number {
  const s = (error as { statusCode?: unknown }).statusCode;
  return typeof s === 'number' && s >= 400 && s <= 599 ? s : 500;
}

/** Sets the error handler and the 404/405 handler on the root instance. */
export function installErrorHandling(app: FastifyInstance, routes: RouteTable): void {
  app.setErrorHandler((error: FastifyError, request, reply) => {
    const issues = validationIssuesOf(error, request);
    if (issues) {
      return reply.code(422).type('application/json; charset=utf-8').send(renderValidationIssues(issues, request.lang));
    }
    if (error instanceof ApiError) {
      for (const [name, value] of Object.entries(error.headers)) reply.header(name, value);
      return sendDetail(request, reply, error.statusCode, error.messageKey, error.vars);
    }
    if (isDatabaseUnavailable(error)) {
      // Logged once per outage by the availability monitor, not once per request.
      reply.header('Retry-After', String(OUTAGE_RETRY_AFTER_SECONDS));
      return sendDetail(request, reply, 503, 'errors.temporarily_unavailable');
    }
    const status = statusOf(error);
    if (status < 500) {
      // Framework 4xx (unsupported media type, body too large, malformed JSON): a plain status message.
      request.log.info({ err: error }, 'request refused');
      const headers = (error as { headers?: Record<string, string> }).headers;
      if (headers && typeof headers === 'object') for (const [name, value] of Object.entries(headers)) reply.header(name, value);
      return sendDetail(request, reply, status, STATUS_MESSAGES[status] ?? 'errors.bad_request');
    }
    request.log.error({ err: error }, 'unhandled error');
    if (status === 503) return sendDetail(request, reply, 503, 'errors.service_unavailable');
    return sendDetail(request, reply, 500, 'errors.internal');
  });

  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0] ?? '/';
    const allowed = routes.allowedMethods(path);
    if (allowed.length > 0 && !allowed.includes(request.method)) {
      reply.header('Allow', allowed.join(', '));
      return sendDetail(request, reply, 405, 'errors.method_not_allowed');
    }
    return sendDetail(request, reply, 404, 'errors.not_found');
  });
}

/**
 * Fastify's own early failures (a malformed URL), which happen before any hook: answered in the same
 * shape, with the language negotiated on the spot.
 */
export function frameworkErrors(error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  const lang = negotiateLanguage(request.headers);
  const status = statusOf(error);
  reply
    .code(status)
    .header('X-Request-Id', request.id)
    .header('Content-Language', lang)
    .headers(BASELINE_SECURITY_HEADERS)
    .type('application/json; charset=utf-8')
    .send({ detail: translate(lang, status < 500 ? (STATUS_MESSAGES[status] ?? 'errors.bad_request') : 'errors.internal') });
}
