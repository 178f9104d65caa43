/**
 * Errors the domain and the HTTP layer raise on purpose. Each carries its HTTP status and a message key
 * of the i18n catalogue (the error handler renders `{"detail": "<message in the caller's language>"}`),
 * so domain code never formats user-facing text itself. Anything that is not an `ApiError` is a bug and
 * answers a bare 500.
 */
import type { MessageKey } from '../i18n/catalogue.js';
import type { MessageVars } from '../i18n/translate.js';

export interface ApiErrorOptions {
  /** Values for the message's placeholders (data values, never translated). */
  vars?: MessageVars;
  /** Response headers that belong to this error (e.g. `WWW-Authenticate`, `Allow`). */
  headers?: Readonly<Record<string, string>>;
  cause?: unknown;
}

/** An error with a status and a translatable message, safe to show to the caller. */
export class ApiError extends Error {
  override name = 'ApiError';
  readonly statusCode: number;
  readonly messageKey: MessageKey;
  readonly vars: MessageVars;
  readonly headers: Readonly<Record<string, string>>;

  constructor(statusCode: number, messageKey: MessageKey, options: ApiErrorOptions = {}) {
    super(messageKey, options.cause === undefined ? undefined : { cause: options.cause });
    this.statusCode = statusCode;
    this.messageKey = messageKey;
    this.vars = options.vars ?? {};
    this.headers = options.headers ?? {};
  }
}

/**
 * 404: the thing does not exist *or the caller may not see it*; both answer the same (docs/decisions.md), so
 * an id never reveals whether it exists elsewhere.
 */
export class NotFoundError extends ApiError {
  override name = 'NotFoundError';
  constructor(messageKey: MessageKey = 'errors.not_found', options: ApiErrorOptions = {}) {
    super(404, messageKey, options);
  }
}

/** 403: authenticated but not allowed (e.g. a token without the route's scope). */
export class ForbiddenError extends ApiError {
  override name = 'ForbiddenError';
  constructor(messageKey: MessageKey = 'errors.forbidden', options: ApiErrorOptions = {}) {
    super(403, messageKey, options);
  }
}
