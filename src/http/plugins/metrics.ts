/**
 * Request metrics and the `/metrics` endpoint. Every answered request is recorded by its route
 * pattern (`/v1/projects/:project_id`, never the raw URL, so ids do not multiply the series), method
 * and status; a 429 also counts as a refusal of the limiter behind that route.
 *
 * `/metrics` exists only when `METRICS_ENABLED` (off by default in production) and, when
 * `METRICS_TOKEN` is set, answers only a request with `Authorization: Bearer <that token>`.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ServiceMetrics } from '../../metrics/service-metrics.js';
import { TOKEN_PATH } from '../../oauth/token/token-endpoint.js';
import { ApiError } from '../../domain/errors.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** The service's metrics (absent on apps built without buildApp, e.g. unit tests of one plugin). */
    metrics?: ServiceMetrics;
  }
}

export const METRICS_PATH = '/metrics';

/** Which limiter a 429 on a route comes from. */
function limiterOf(route: string): string {
  if (route === TOKEN_PATH) return 'token';
  if (route === '/sign-in') return 'sign_in';
  return route;
}

function digest(value: string): Buffer {
  return createHash('sha256').update(value).digest();
}

/** Constant-time comparison of the presented bearer token with the configured one. */
function presentsToken(request: FastifyRequest, expected: string): boolean {
  const match = /^Bearer +(\S+) *$/i.exec(request.headers.authorization ?? '');
  return match !== null && timingSafeEqual(digest(match[1]!), digest(expected));
}

/** Records every request of `app` and serves `/metrics` when the configuration allows. */
export function installMetrics(app: FastifyInstance, metrics: ServiceMetrics): void {
  app.decorate('metrics', metrics);
  app.addHook('onResponse', async (request, reply) => {
    const route = request.routeOptions.url ?? '(unmatched)';
    metrics.recordRequest({ method: request.method, route, status: reply.statusCode }, reply.elapsedTime / 1000);
    if (reply.statusCode === 429) metrics.recordRateLimitRefusal(limiterOf(route));
  });

  const { metricsEnabled, metricsToken } = app.services.config;
  if (!metricsEnabled) return;
  app.get(METRICS_PATH, { schema: { hide: true } }, async (request, reply) => {
    if (metricsToken !== null && !presentsToken(request, metricsToken)) {
      throw new ApiError(401, 'errors.not_authenticated', { headers: { 'WWW-Authenticate': 'Bearer realm="metrics"' } });
    }
    const { contentType, body } = await metrics.render();
    return reply.header('Cache-Control', 'no-store').type(contentType).send(body);
  });
}
