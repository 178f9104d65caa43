/**
 * Headers every response carries, JSON and /docs included: no MIME sniffing (a JSON body is never run
 * as script or styled as HTML) and no framing (no clickjacking of /docs or anything else). The web
 * application adds its stricter policy on top (src/web/security-headers.ts).
 */
import type { FastifyInstance } from 'fastify';

export const BASELINE_SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'X-Content-Type-Options': 'nosniff',
  'X-Frame-Options': 'DENY',
};

export function installSecurityHeaders(app: FastifyInstance): void {
  app.addHook('onRequest', (_request, reply, done) => {
    reply.headers(BASELINE_SECURITY_HEADERS);
    done();
  });
}
