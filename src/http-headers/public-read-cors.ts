/**
 * CORS for public documents that other sites read from the browser (the JWKS, public certificates, the
 * certificate badge): any origin may GET them without credentials, and a preflight is answered for GET.
 * Nothing else: no credentials, no other method, no cookies read on these routes.
 */
import type { FastifyInstance, FastifyReply } from 'fastify';

/** Headers a browser script may send to these routes (conditional requests and language). */
const ALLOWED_REQUEST_HEADERS = 'if-none-match, accept-language, lang';
/** Response headers a script on another origin may read. */
const EXPOSED_HEADERS = 'ETag, Content-Language';

/** The CORS headers of a public GET answer. */
export const PUBLIC_READ_CORS_HEADERS: Readonly<Record<string, string>> = {
  'Access-Control-Allow-Origin': '*',
  'Access-Control-Expose-Headers': EXPOSED_HEADERS,
  // Images and documents of these routes may be embedded by any site (also under COEP).
  'Cross-Origin-Resource-Policy': 'cross-origin',
};

/** The headers of a public GET answer. */
export function setPublicReadCors(reply: FastifyReply): void {
  reply.headers(PUBLIC_READ_CORS_HEADERS);
}

/** Registers the CORS preflight (OPTIONS, 204) of a public GET route; kept out of the OpenAPI document. */
export function publicReadPreflight(app: FastifyInstance, url: string): void {
  app.options(url, { schema: { hide: true } }, async (_request, reply) => {
    setPublicReadCors(reply);
    reply.header('Access-Control-Allow-Methods', 'GET, HEAD, OPTIONS');
    reply.header('Access-Control-Allow-Headers', ALLOWED_REQUEST_HEADERS);
    reply.header('Access-Control-Max-Age', '86400');
    return reply.code(204).send();
  });
}
