/**
 * Builds the Fastify application: API (/v1), token service (/oauth2, /.well-known) and operational
 * routes, all on one instance, over the services the composition root built (src/app/services.ts); the
 * composition root mounts the web application on it (src/app/http-server.ts). Each feature registers itself as a plugin and takes what it needs from
 * `app.services`; this module only wires them in order. Nothing here listens: `serve` does.
 *
 * Order matters: the route table (405), language negotiation, error handling, shared schemas and the
 * OpenAPI generator are installed before any route, so that every route is seen by all of them.
 */
import http from 'node:http';
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import type { AppServices } from './app-services.js';
import { oauthPlugin } from '../oauth/index.js';
import { trustProxyFor } from './trusted-proxies.js';
import { requestIdOf } from './request-id.js';
import { publicCertificateFastPath, type FastPath } from './public-certificate-fast-path.js';
import { logTileFastPath } from './log-tile-fast-path.js';
import { registerComponentSchemas } from './openapi/components.js';
import { registerOpenApi } from './openapi/register-openapi.js';
import { installConnectionDrain } from './connection-drain.js';
import { frameworkErrors, installErrorHandling } from './plugins/error-handler.js';
import { installRequestLine, readableLogs } from './plugins/request-logging.js';
import { answerConnectRequests, clientErrorHandler } from './plugins/raw-client-errors.js';
import { installSecurityHeaders } from './plugins/security-headers.js';
import { rejectRepeatedHeaders } from '../http-headers/repeated-headers.js';
import { installMetrics } from './plugins/metrics.js';
import { installJsonBodyParser } from './plugins/json-body.js';
import { installLanguageNegotiation } from './plugins/language.js';
import { trackRoutes } from './plugins/method-not-allowed.js';
import { healthRoutes } from './routes/health.js';
import { objectRoutes } from './routes/objects.js';
import { orderRoutes } from './routes/orders.js';
import { orderHistoryRoutes } from './routes/order-history.js';
import { orderIntakeRoutes } from './routes/order-intake.js';
import { certificateRoutes } from './routes/certificates.js';
import { certificateBadgeRoutes } from './routes/certificate-badge.js';
import { transparencyLogRoutes } from './routes/transparency-log.js';
import { webhookEndpointRoutes } from './routes/webhook-endpoints.js';
import { organizationMemberRoutes } from './routes/organization-members.js';
import { projectRoutes } from './routes/projects.js';
import { buildValidatorFactory } from './validation/validator-factory.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** The process's long-lived services (built by src/app/services.ts), given to every feature. */
    services: AppServices;
  }
}

/**
 * @example
 * const app = await buildApp(await createServices({ config, database })); // API only: buildServer adds the web pages
 */
export async function buildApp(services: AppServices): Promise<FastifyInstance> {
  const { config } = services;
  // Set once every route is registered; until then every request goes to Fastify.
  let fastPath: FastPath | null = null;
  const app = Fastify({
    loggerInstance: services.log as FastifyBaseLogger,
    // Development prints one readable line per request (installRequestLine) instead of Fastify's two.
    logController: new LogController({ disableRequestLogging: readableLogs(config) }),
    // A hop count, never `true`: a caller's own X-Forwarded-For cannot pick its address.
    trustProxy: trustProxyFor(config.trustedProxyHops),
    // Every response carries X-Request-Id; an incoming one is kept only when it looks like an id.
    genReqId: (req) => requestIdOf(req.headers),
    requestIdHeader: false,
    bodyLimit: 1024 * 1024,
    // Parameters are validated the pydantic way (FastAPI-compatible 422s), bodies by Ajv with allErrors.
    // (Fastify's type for the factory is Ajv's compile; at run time it is given the route schema part.)
    schemaController: { compilersFactory: { buildValidator: buildValidatorFactory as never } },
    ajv: { customOptions: { allErrors: true } },
    frameworkErrors,
    // What Node's parser refuses (431, 414, bad framing) answers {"detail"} too, not Fastify's shape.
    clientErrorHandler,
    // Fastify's own HTTP server, with the public certificate fast path in front of its handler.
    serverFactory: (handler, fastifyOptions) => {
      const options = fastifyOptions as { keepAliveTimeout?: number; requestTimeout?: number; connectionTimeout?: number; maxRequestsPerSocket?: number | null };
      const server = http.createServer((req, res) => {
        if (fastPath) fastPath(req, res, () => handler(req, res));
        else handler(req, res);
      });
      // What Fastify sets on the server it makes itself (lib/server.js), from its defaults.
      server.keepAliveTimeout = options.keepAliveTimeout ?? 72_000;
      server.requestTimeout = options.requestTimeout ?? 0;
      server.setTimeout(options.connectionTimeout ?? 0);
      if ((options.maxRequestsPerSocket ?? 0) > 0) server.maxRequestsPerSocket = options.maxRequestsPerSocket ?? 0;
      return server;
    },
  });
  answerConnectRequests(app.server);
  app.decorate('services', services);
  const routeTable = trackRoutes(app);
  app.addHook('onRequest', async (req, reply) => {
    reply.header('X-Request-Id', req.id);
  });
  installRequestLine(app, config);
  installSecurityHeaders(app);
  rejectRepeatedHeaders(app);
  installLanguageNegotiation(app);
  installErrorHandling(app, routeTable);
  installConnectionDrain(app);
  installMetrics(app, services.metrics);
  installJsonBodyParser(app);
  registerComponentSchemas(app);
  await registerOpenApi(app, { issuerUrl: config.issuerUrl, publicBaseUrl: config.publicBaseUrl });

  await app.register(healthRoutes);
  await app.register(oauthPlugin, { services: services.oauth });
  await app.register(orderRoutes);
  await app.register(orderIntakeRoutes);
  await app.register(orderHistoryRoutes);
  await app.register(certificateRoutes);
  await app.register(certificateBadgeRoutes);
  await app.register(transparencyLogRoutes);
  await app.register(objectRoutes);
  await app.register(projectRoutes);
  await app.register(organizationMemberRoutes);
  await app.register(webhookEndpointRoutes);
  const certificatesFast = publicCertificateFastPath({ cache: services.publicCertificates, metrics: services.metrics, log: services.log, draining: () => app.drain.draining });
  const tilesFast = logTileFastPath({ cache: services.logTiles, metrics: services.metrics, log: services.log, draining: () => app.drain.draining });
  fastPath = (req, res, next) => tilesFast(req, res, () => certificatesFast(req, res, next));
  return app;
}
