/**
 * Response headers of every web page and asset. The policy allows only this origin's script, style and
 * images (plus the object-storage origin of presigned preview URLs), no inline script or style, no framing.
 * `script-src 'self'` never gets 'unsafe-inline' or 'unsafe-eval': browser code is the bundles of
 * src/web/client, attached with addEventListener (docs/web.md); test/web/csp.test.ts keeps it so.
 */
import type { FastifyReply } from 'fastify';

/** The Content-Security-Policy for pages whose images may come from `imageOrigins`. */
export function contentSecurityPolicy(imageOrigins: readonly string[], uploadOrigins: readonly string[] = []): string {
  return [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    `img-src 'self' ${imageOrigins.join(' ')}`.trim(),
    // The upload page PUTs files straight to object storage (an S3 bucket is another origin).
    `connect-src 'self' ${uploadOrigins.join(' ')}`.trim(),
    "form-action 'self'",
    "base-uri 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
}

/**
 * The policy of the verify pages (/verify, /verify/{id}), which compile the C2PA reference
 * implementation's WebAssembly (served by this origin): `'wasm-unsafe-eval'` lets a script of this origin
 * compile WebAssembly and nothing else (no `eval`, no `new Function`, no inline script). Every other
 * page keeps `script-src 'self'` alone.
 */
export function allowingWebAssembly(csp: string): string {
  return csp.replace(/(^|; )script-src 'self'(?=;|$)/, "$1script-src 'self' 'wasm-unsafe-eval'");
}

/** Origin of a URL, or null for an unusable one. */
export function originOf(url: string): string | null {
  try {
    return new URL(url).origin;
  } catch {
    return null;
  }
}

export function setSecurityHeaders(reply: FastifyReply, csp: string): void {
  reply.header('Content-Security-Policy', csp);
  reply.header('X-Frame-Options', 'DENY');
  reply.header('X-Content-Type-Options', 'nosniff');
  // Same-origin only: presigned URLs and order ids in page URLs never leak to another site.
  reply.header('Referrer-Policy', 'same-origin');
  reply.header('Cross-Origin-Opener-Policy', 'same-origin');
}
