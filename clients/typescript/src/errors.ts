/**
 * Errors the client throws. Every answer of the API that is not a success becomes an instance of the
 * class of its status (all extend `CertdeskError`, carrying `status`, the parsed `body` and the server's
 * `requestId`); a request that never got an answer is a `CertdeskConnectionError` (status 0), one that
 * ran out of time a `CertdeskTimeoutError`.
 */
export class CertdeskError extends Error {
  override name = 'CertdeskError';
  constructor(
    message: string,
    /** HTTP status; 0 when no answer arrived. */
    readonly status: number,
    /** The parsed JSON body (or the text when it is not JSON); null without an answer. */
    readonly body: unknown,
    /** The server's `x-request-id` of the answer, when there was one: quote it to support. */
    readonly requestId: string | null,
    /** `Retry-After` of the answer, in milliseconds, when it had one. */
    readonly retryAfterMs: number | null = null,
  ) {
    super(message);
  }
}

export class BadRequestError extends CertdeskError { override name = 'BadRequestError'; }
export class AuthenticationError extends CertdeskError { override name = 'AuthenticationError'; }
export class PermissionDeniedError extends CertdeskError { override name = 'PermissionDeniedError'; }
export class NotFoundError extends CertdeskError { override name = 'NotFoundError'; }
export class ConflictError extends CertdeskError { override name = 'ConflictError'; }
/** The resource is gone for good (e.g. the credentialed file of a revoked certificate). */
export class GoneError extends CertdeskError { override name = 'GoneError'; }
export class PayloadTooLargeError extends CertdeskError { override name = 'PayloadTooLargeError'; }
export class UnprocessableEntityError extends CertdeskError { override name = 'UnprocessableEntityError'; }
export class RateLimitError extends CertdeskError { override name = 'RateLimitError'; }
export class InternalServerError extends CertdeskError { override name = 'InternalServerError'; }
export class ServiceUnavailableError extends CertdeskError { override name = 'ServiceUnavailableError'; }
/** No answer: the connection failed or was dropped. */
export class CertdeskConnectionError extends CertdeskError { override name = 'CertdeskConnectionError'; }
/** No answer within the request's timeout. */
export class CertdeskTimeoutError extends CertdeskConnectionError { override name = 'CertdeskTimeoutError'; }

type ErrorClass = new (message: string, status: number, body: unknown, requestId: string | null, retryAfterMs?: number | null) => CertdeskError;

const BY_STATUS: Record<number, ErrorClass> = {
  400: BadRequestError,
  401: AuthenticationError,
  403: PermissionDeniedError,
  404: NotFoundError,
  409: ConflictError,
  410: GoneError,
  413: PayloadTooLargeError,
  422: UnprocessableEntityError,
  429: RateLimitError,
  500: InternalServerError,
  503: ServiceUnavailableError,
};

/** The human-readable message of an error body (`detail`, a 422 list, or an OAuth error). */
function messageOf(status: number, body: unknown): string {
  if (body && typeof body === 'object') {
    const b = body as Record<string, unknown>;
    if (typeof b.detail === 'string') return b.detail;
    if (Array.isArray(b.detail)) {
      return b.detail
        .map((d) => {
          const e = d as { loc?: unknown[]; msg?: string };
          return `${(e.loc ?? []).join('.')}: ${e.msg ?? ''}`;
        })
        .join('; ');
    }
    if (typeof b.error === 'string') return typeof b.error_description === 'string' ? `${b.error}: ${b.error_description}` : b.error;
  }
  if (typeof body === 'string' && body.length > 0) return body.slice(0, 200);
  return `HTTP ${status}`;
}

/** The error of an answer with a non-success status. */
export function errorFromResponse(status: number, body: unknown, requestId: string | null, retryAfterMs: number | null): CertdeskError {
  const Class = BY_STATUS[status] ?? CertdeskError;
  return new Class(`${status} ${messageOf(status, body)}`, status, body, requestId, retryAfterMs);
}
