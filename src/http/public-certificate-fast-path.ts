/**
 * The hottest public path, answered before Fastify: `GET /v1/certificates/{id}` and
 * `GET /verify/{id}/badge.svg` of a certificate that exists, from the public certificate cache
 * (public-certificate-cache.ts: kept in memory while that is safe, else read together with other misses). Badges are embedded on customers' pages; measured with 64 connections,
 * Fastify's routing, hooks and reply machinery cost more CPU than everything else such a request needs
 * (docs/benchmarks.md, "Public certificate lookups").
 *
 * The answer is the one the routes give (routes/certificates.ts, routes/certificate-badge.ts), with every
 * header the application's hooks add: X-Request-Id, the baseline security headers, Content-Language and
 * Vary, the public CORS headers, ETag and Cache-Control (and the badge's CSP); `If-None-Match` gives 304.
 * The request is counted in the request metrics under its route, and logged as `request completed` when
 * the level is info or lower (one line, not Fastify's two). test/http/public-certificate-fast-path.test.ts
 * holds both paths to the same headers and bodies.
 *
 * Everything else goes to Fastify: another method or path, a query string, a body, a malformed or unknown
 * id (the route's 404 speaks the request's language), a failed read (the route answers the error), a
 * repeated single-valued header (refused there), and every request once the server is draining (the drain
 * closes those connections).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { performance } from 'node:perf_hooks';
import type { Logger } from 'pino';
import type { ServiceMetrics } from '../metrics/service-metrics.js';
import { matchesIfNoneMatch } from './conditional.js';
import { LANGUAGE_VARY, memoizedNegotiation } from './plugins/language.js';
import { BASELINE_SECURITY_HEADERS } from './plugins/security-headers.js';
import type { PublicCertificateAnswer } from './public-certificate-cache.js';
import { PUBLIC_READ_CORS_HEADERS } from '../http-headers/public-read-cors.js';
import { repeatedSingleHeader } from '../http-headers/repeated-headers.js';
import { requestIdOf } from './request-id.js';
import { BADGE_CONTENT_TYPE, BADGE_CSP, BADGE_PATH } from './routes/certificate-badge.js';
import { PUBLIC_CERTIFICATE_CACHE_CONTROL, PUBLIC_CERTIFICATE_PATH } from './routes/certificates.js';

export interface PublicCertificateFastPathDeps {
  cache: { peek(certificateId: string): PublicCertificateAnswer | null; get(certificateId: string): Promise<PublicCertificateAnswer | null> };
  metrics: Pick<ServiceMetrics, 'recordRequest'>;
  log: Pick<Logger, 'info' | 'isLevelEnabled'>;
  /** True once the server drains for a stop. */
  draining: () => boolean;
}

/** Answers the request, or calls `next` (at once or after a read) to leave it to Fastify untouched. */
export type FastPath = (req: IncomingMessage, res: ServerResponse, next: () => void) => void;

const JSON_PATH = /^\/v1\/certificates\/([0-9A-Fa-f-]{36})$/;
const BADGE = /^\/verify\/([0-9A-Fa-f-]{36})\/badge\.svg$/;

/**
 * The headers every answer of both routes carries, lower-case as Fastify sends them, as name, value, name,
 * value…: the answer hands Node one such array (writeHead), which writes it straight into the head of the
 * response, instead of a setHeader per header, each validated and stored in a per-response object first.
 */
const COMMON_HEADERS: readonly string[] = [...Object.entries(BASELINE_SECURITY_HEADERS), ...Object.entries(PUBLIC_READ_CORS_HEADERS)].flatMap(
  ([name, value]) => [name.toLowerCase(), value],
);

export function publicCertificateFastPath(deps: PublicCertificateFastPathDeps): FastPath {
  const negotiate = memoizedNegotiation();

  function answer(req: IncomingMessage, res: ServerResponse, found: PublicCertificateAnswer, badge: boolean, started: number): void {
    const etag = badge ? found.badgeEtag : found.etag;
    const requestId = requestIdOf(req.headers);
    const headers = [
      ...COMMON_HEADERS,
      'x-request-id', requestId,
      'content-language', negotiate(req.headers),
      'vary', LANGUAGE_VARY,
      'etag', etag,
      'cache-control', PUBLIC_CERTIFICATE_CACHE_CONTROL,
    ];
    if (badge) headers.push('content-security-policy', BADGE_CSP);
    if (matchesIfNoneMatch(req.headers['if-none-match'], etag)) {
      res.writeHead(304, headers);
      res.end();
    } else {
      const body = badge ? found.badge : found.json;
      headers.push('content-type', badge ? BADGE_CONTENT_TYPE : 'application/json; charset=utf-8', 'content-length', String(body.length));
      res.writeHead(200, headers);
      res.end(body);
    }
    const seconds = (performance.now() - started) / 1000;
    deps.metrics.recordRequest({ method: 'GET', route: badge ? BADGE_PATH : PUBLIC_CERTIFICATE_PATH, status: res.statusCode }, seconds);
    if (deps.log.isLevelEnabled('info')) {
      deps.log.info(
        { reqId: requestId, req: { method: req.method, url: req.url, host: req.headers.host, ip: req.socket.remoteAddress, socket: req.socket }, res: { statusCode: res.statusCode }, responseTime: seconds * 1000 },
        'request completed',
      );
    }
  }

  return (req, res, next) => {
    if (req.method !== 'GET' || req.url === undefined) return next();
    const badgeMatch = BADGE.exec(req.url);
    const match = badgeMatch ?? JSON_PATH.exec(req.url);
    // A body (a GET may carry one) is Fastify's to read or refuse; so is a repeated single-valued header.
    const hasBody = req.headers['content-length'] !== undefined || req.headers['transfer-encoding'] !== undefined;
    if (!match || hasBody || deps.draining() || repeatedSingleHeader(req.rawHeaders) !== null) return next();
    const started = performance.now();
    const badge = badgeMatch !== null;
    const kept = deps.cache.peek(match[1]!);
    if (kept) return answer(req, res, kept, badge, started);
    // Not kept: read (with the other reads of this turn of the event loop) and keep it. Unknown ids, and a
    // read that failed, are the route's: it answers 404 or the error in the contract's shape.
    deps.cache.get(match[1]!).then(
      (found) => {
        if (res.destroyed) return; // the caller left meanwhile
        if (found) answer(req, res, found, badge, started);
        else next();
      },
      () => next(),
    );
  };
}
