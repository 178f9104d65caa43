/**
 * `GET /log/tile/...` answered before Fastify when the tile is in memory (log-tile-cache.ts): tiles are
 * what monitors and mirrors fetch by the thousand, and they never change. The answer is the route's
 * (routes/transparency-log.ts), with every header the application's hooks add (X-Request-Id, the baseline
 * security headers, Content-Language and Vary, the public CORS headers, Cache-Control);
 * test/transparency-log/log-tile-fast-path.test.ts holds both to the same headers and bytes. Everything
 * else, a tile not in memory included, goes to Fastify (the route reads it from storage and keeps it).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { performance } from 'node:perf_hooks';
import type { Logger } from 'pino';
import { parseTilePath, TILE_CONTENT_TYPE, TILE_WIDTH } from '../domain/transparency-log/index.js';
import type { ServiceMetrics } from '../metrics/service-metrics.js';
import { LANGUAGE_VARY, memoizedNegotiation } from './plugins/language.js';
import { BASELINE_SECURITY_HEADERS } from './plugins/security-headers.js';
import type { LogTileCache } from './log-tile-cache.js';
import { PUBLIC_READ_CORS_HEADERS } from '../http-headers/public-read-cors.js';
import { repeatedSingleHeader } from '../http-headers/repeated-headers.js';
import { requestIdOf } from './request-id.js';
import { FULL_TILE_CACHE_CONTROL, PARTIAL_TILE_CACHE_CONTROL, TILE_ROUTE } from './routes/transparency-log.js';
import type { FastPath } from './public-certificate-fast-path.js';

export interface LogTileFastPathDeps {
  cache: LogTileCache;
  metrics: Pick<ServiceMetrics, 'recordRequest'>;
  log: Pick<Logger, 'info' | 'isLevelEnabled'>;
  draining: () => boolean;
}

const PREFIX = '/log/tile/';
const COMMON_HEADERS: readonly string[] = [...Object.entries(BASELINE_SECURITY_HEADERS), ...Object.entries(PUBLIC_READ_CORS_HEADERS)].flatMap(([name, value]) => [
  name.toLowerCase(),
  value,
]);

export function logTileFastPath(deps: LogTileFastPathDeps): FastPath {
  const negotiate = memoizedNegotiation();
  return (req, res, next) => {
    if (req.method !== 'GET' || req.url === undefined || !req.url.startsWith(PREFIX)) return next();
    const hasBody = req.headers['content-length'] !== undefined || req.headers['transfer-encoding'] !== undefined;
    if (hasBody || deps.draining() || repeatedSingleHeader(req.rawHeaders) !== null) return next();
    const path = req.url.slice(5); // `tile/...` (a query string or an encoded character makes it no tile path)
    const bytes = deps.cache.get(path);
    if (!bytes) return next();
    const tile = parseTilePath(path);
    if (!tile) return next();
    answer(req, res, bytes, tile.width === TILE_WIDTH ? FULL_TILE_CACHE_CONTROL : PARTIAL_TILE_CACHE_CONTROL);
  };

  function answer(req: IncomingMessage, res: ServerResponse, body: Buffer, cacheControl: string): void {
    const started = performance.now();
    const requestId = requestIdOf(req.headers);
    res.writeHead(200, [
      ...COMMON_HEADERS,
      'x-request-id', requestId,
      'content-language', negotiate(req.headers),
      'vary', LANGUAGE_VARY,
      'cache-control', cacheControl,
      'content-type', TILE_CONTENT_TYPE,
      'content-length', String(body.length),
    ]);
    res.end(body);
    const seconds = (performance.now() - started) / 1000;
    deps.metrics.recordRequest({ method: 'GET', route: TILE_ROUTE, status: 200 }, seconds);
    if (deps.log.isLevelEnabled('info')) {
      deps.log.info(
        { reqId: requestId, req: { method: req.method, url: req.url, host: req.headers.host, ip: req.socket.remoteAddress, socket: req.socket }, res: { statusCode: 200 }, responseTime: seconds * 1000 },
        'request completed',
      );
    }
  }
}
