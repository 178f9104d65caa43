/**
 * Builds the Fastify application: API (/v1), token service (/oauth2, /.well-known), web application and
 * operational routes, all on one instance. Each feature registers itself as a plugin; this module only
 * wires them in order. Nothing here listens: `serve` (src/cli/commands/serve.ts) does.
 *
 * Order matters: the route table (405), language negotiation, error handling, shared schemas and the
 * OpenAPI generator are installed before any route, so that every route is seen by all of them.
 */
import { randomUUID } from 'node:crypto';
import Fastify, { type FastifyInstance } from 'fastify';
import type { Config } from '../config.js';
import { oauthPlugin } from '../oauth/index.js';
import { createBruteForceLimiters, openFailureStore, type BruteForceLimiters } from '../rate-limit/index.js';
import type { DatabaseHandle } from '../storage/database.js';
import { trustProxyFor } from './trusted-proxies.js';
import { registerComponentSchemas } from './openapi/components.js';
import { registerOpenApi } from './openapi/register-openapi.js';
import { createServiceMetrics, type ServiceMetrics } from '../metrics/service-metrics.js';
import { installConnectionDrain } from './connection-drain.js';
import { logDatabaseOutages } from './plugins/database-outage.js';
import { frameworkErrors, installErrorHandling } from './plugins/error-handler.js';
import { installRequestLine, loggerOptions } from './plugins/request-logging.js';
import { answerConnectRequests, clientErrorHandler } from './plugins/raw-client-errors.js';
import { installSecurityHeaders } from './plugins/security-headers.js';
import { rejectRepeatedHeaders } from './repeated-headers.js';
import { installMetrics } from './plugins/metrics.js';
import { installLanguageNegotiation } from './plugins/language.js';
import { trackRoutes } from './plugins/method-not-allowed.js';
import { healthRoutes } from './routes/health.js';
import { objectRoutes } from './routes/objects.js';
import { orderRoutes } from './routes/orders.js';
import { orderIntakeRoutes } from './routes/order-intake.js';
import { organizationMemberRoutes } from './routes/organization-members.js';
import { projectRoutes } from './routes/projects.js';
import { webPlugin } from '../web/index.js';
import { buildValidatorFactory } from './validation/validator-factory.js';

export interface AppDependencies {
  config: Config;
  database: DatabaseHandle;
  /** Object storage of previews and layers; defaults to the one the configuration names. */
  storage?: import('../storage/object-storage/index.js').ObjectStorage;
  /** Time of domain writes (orders, uploads, jobs); the system clock unless a test injects one. */
  clock?: import('../domain/time/clock.js').Clock;
  /** Called when a request queued a background job (wakes this process's worker). */
  onJobQueued?: () => void;
  /** Brute-force guards of the token endpoint and sign-in; default: over the configured failure store. */
  limiters?: BruteForceLimiters;
  /** Prometheus metrics; defaults to a registry of this app's own (without process metrics). */
  metrics?: ServiceMetrics;
}

declare module 'fastify' {
  interface FastifyInstance {
    deps: AppDependencies;
    /** The brute-force guards (one failure store); attach refusal listeners with `onRefused`. */
    limiters: BruteForceLimiters;
  }
}

export async function buildApp(deps: AppDependencies): Promise<FastifyInstance> {
  const app = Fastify({
    ...loggerOptions(deps.config),
    // A hop count, never `true`: a caller's own X-Forwarded-For cannot pick its address.
    trustProxy: trustProxyFor(deps.config.trustedProxyHops),
    // Every response carries X-Request-Id; an incoming one is kept only when it looks like an id.
    genReqId: (req) => {
      const incoming = req.headers['x-request-id'];
      return typeof incoming === 'string' && /^[A-Za-z0-9._-]{8,128}$/.test(incoming) ? incoming : randomUUID();
    },
    requestIdHeader: false,
    bodyLimit: 1024 * 1024,
    // Parameters are validated the pydantic way (FastAPI-compatible 422s), bodies by Ajv with allErrors.
    // (Fastify's type for the factory is Ajv's compile; at run time it is given the route schema part.)
    schemaController: { compilersFactory: { buildValidator: buildValidatorFactory as never } },
    ajv: { customOptions: { allErrors: true } },
    frameworkErrors,
    // What Node's parser refuses (431, 414, bad framing) answers {"detail"} too, not Fastify's shape.
    clientErrorHandler,
  });
  answerConnectRequests(app.server);
  app.decorate('deps', deps);
  const limiters = deps.limiters ?? createBruteForceLimiters({ store: openFailureStore(deps.config), log: app.log });
  app.decorate('limiters', limiters);
  if (!deps.limiters) app.addHook('onClose', () => limiters.close());
  const routeTable = trackRoutes(app);
  app.addHook('onRequest', async (req, reply) => {
    reply.header('X-Request-Id', req.id);
  });
  installRequestLine(app, deps.config);
  installSecurityHeaders(app);
  rejectRepeatedHeaders(app);
  installLanguageNegotiation(app);
  installErrorHandling(app, routeTable);
  installConnectionDrain(app);
  logDatabaseOutages(app);
  installMetrics(app, deps.metrics ?? createServiceMetrics({ processMetrics: false }));
  registerComponentSchemas(app);
  await registerOpenApi(app, { issuerUrl: deps.config.issuerUrl, publicBaseUrl: deps.config.publicBaseUrl });

  await app.register(healthRoutes);
  await app.register(oauthPlugin);
  await app.register(orderRoutes);
  await app.register(orderIntakeRoutes);
  await app.register(objectRoutes);
  await app.register(projectRoutes);
  await app.register(organizationMemberRoutes);
  await app.register(webPlugin);
  return app;
}
