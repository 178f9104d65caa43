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
import type { DatabaseHandle } from '../storage/database.js';
import { registerComponentSchemas } from './openapi/components.js';
import { registerOpenApi } from './openapi/register-openapi.js';
import { frameworkErrors, installErrorHandling } from './plugins/error-handler.js';
import { installLanguageNegotiation } from './plugins/language.js';
import { trackRoutes } from './plugins/method-not-allowed.js';
import { healthRoutes } from './routes/health.js';
import { objectRoutes } from './routes/objects.js';
import { orderRoutes } from './routes/orders.js';
import { organizationMemberRoutes } from './routes/organization-members.js';
import { projectRoutes } from './routes/projects.js';
import { webPlugin } from '../web/index.js';
import { buildValidatorFactory } from './validation/validator-factory.js';

export interface AppDependencies {
  config: Config;
  database: DatabaseHandle;
  /** Object storage of previews and layers; defaults to the one the configuration names. */
  storage?: import('../storage/object-storage/index.js').ObjectStorage;
}

declare module 'fastify' {
  interface FastifyInstance {
    deps: AppDependencies;
  }
}

/** Request headers that must never reach a log line. */
export const REDACTED_HEADERS = ['req.headers.authorization', 'req.headers.cookie', 'res.headers["set-cookie"]'];

export async function buildApp(deps: AppDependencies): Promise<FastifyInstance> {
  const app = Fastify({
    logger:
      deps.config.logLevel === 'silent'
        ? false
        : { level: deps.config.logLevel, redact: { paths: REDACTED_HEADERS, censor: '[redacted]' } },
    trustProxy: deps.config.trustProxy,
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
  });
  app.decorate('deps', deps);
  const routeTable = trackRoutes(app);
  app.addHook('onRequest', async (req, reply) => {
    reply.header('X-Request-Id', req.id);
  });
  installLanguageNegotiation(app);
  installErrorHandling(app, routeTable);
  registerComponentSchemas(app);
  await registerOpenApi(app, { issuerUrl: deps.config.issuerUrl, publicBaseUrl: deps.config.publicBaseUrl });

  await app.register(healthRoutes);
  await app.register(oauthPlugin);
  await app.register(orderRoutes);
  await app.register(objectRoutes);
  await app.register(projectRoutes);
  await app.register(organizationMemberRoutes);
  await app.register(webPlugin);
  return app;
}
