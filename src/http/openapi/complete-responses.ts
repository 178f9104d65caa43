/**
 * Final touches on the generated document, so every operation tells the whole truth whatever its route
 * declared: FastAPI's response descriptions ("Successful Response", "Validation Error") instead of the
 * generator's "Default Response", the 401/403 answers of the bearer check on every secured operation, and
 * the answers of the HTTP layer itself, which no route declares but every operation can give: 400 for a
 * malformed URL (bad percent-encoding), 414 for a path parameter longer than the router accepts, 431 for
 * request headers too large (Node's HTTP parser, no body), 413 and 415 for a write's body that is too large
 * or in another media type, 500 for an unexpected failure and 503 with
 * `Retry-After` while the database cannot be reached.
 */
const DESCRIPTIONS: Record<string, string> = {
  '200': 'Successful Response',
  '401': 'Missing, invalid or expired access token.',
  '403': 'The access token does not grant the required scope.',
  '404': 'Not found, or not visible to the caller.',
  '422': 'Validation Error',
};

type Json = Record<string, unknown>;

/** The OAuth 2.0 bearer scheme's name (route-docs.ts SECURITY_SCHEME; not imported to keep this module free of TypeBox). */
const BEARER_SCHEME = 'OAuth2';

const errorDetail = (description: string): Json => ({
  description,
  content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorDetail' } } },
});

/** Shared responses of the HTTP layer, referenced from every operation that can give them. */
export const TRANSPORT_RESPONSES: Record<string, Json> = {
  BadRequest: errorDetail('Malformed request: a URL that does not decode (bad percent-encoding), or a malformed header.'),
  UriTooLong: errorDetail('A path parameter is longer than the router accepts (100 characters).'),
  RequestHeaderFieldsTooLarge: { description: 'The request headers are too large (answered by the HTTP server, without a body).' },
  PayloadTooLarge: errorDetail('The request body is larger than the operation accepts.'),
  UnsupportedMediaType: errorDetail('The request body is in a media type the operation does not take (see its request body).'),
  InternalServerError: errorDetail('Unexpected failure; the `X-Request-Id` response header identifies the log line.'),
  ServiceUnavailable: {
    ...errorDetail('The database cannot be reached right now; retry after the `Retry-After` seconds.'),
    headers: { 'Retry-After': { description: 'Seconds to wait before trying again.', schema: { type: 'integer', minimum: 1 } } },
  },
};

const ref = (name: keyof typeof TRANSPORT_RESPONSES): Json => ({ $ref: `#/components/responses/${name}` });

/** Rewrites the document's operations in place and returns it. */
export function completeResponses<T extends Record<string, unknown>>(document: T): T {
  const paths = (document.paths ?? {}) as Record<string, Record<string, Json>>;
  const components = ((document as Json).components ??= {}) as Json;
  components.responses = { ...((components.responses as Json | undefined) ?? {}), ...TRANSPORT_RESPONSES };
  for (const [path, operations] of Object.entries(paths)) {
    for (const operation of Object.values(operations)) {
      if (operation === null || typeof operation !== 'object' || !('responses' in operation)) continue;
      const responses = operation.responses as Record<string, Json>;
      for (const [status, response] of Object.entries(responses)) {
        if (response.description === 'Default Response' && DESCRIPTIONS[status]) response.description = DESCRIPTIONS[status];
      }
      // Bearer-protected operations (not the token endpoint, whose client authentication answers RFC 6749 errors).
      const bearer = Array.isArray(operation.security) && operation.security.some((s) => s !== null && typeof s === 'object' && BEARER_SCHEME in s);
      if (bearer) {
        responses['401'] ??= errorDetail(DESCRIPTIONS['401']!);
        responses['403'] ??= errorDetail(DESCRIPTIONS['403']!);
      }
      responses['400'] ??= ref('BadRequest');
      // Bodies of the /v1 writes: too large, or in another media type (the token endpoint answers RFC 6749 errors instead).
      if (bearer && 'requestBody' in operation) {
        responses['413'] ??= ref('PayloadTooLarge');
        responses['415'] ??= ref('UnsupportedMediaType');
      }
      if (path.includes('{')) responses['414'] ??= ref('UriTooLong');
      responses['431'] ??= ref('RequestHeaderFieldsTooLarge');
      responses['500'] ??= ref('InternalServerError');
      responses['503'] ??= ref('ServiceUnavailable');
    }
  }
  return document;
}
