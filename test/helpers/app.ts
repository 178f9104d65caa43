/**
 * The real application over the real composition root, for in-process tests: `createServices` then
 * `buildApp`, with the services closed when the app closes (the database stays the test's).
 *
 * @example
 * const app = await buildTestApp({ config, database });
 * const res = await app.inject({ method: 'GET', url: '/healthz' });
 * await app.close();
 */
import type { FastifyInstance } from 'fastify';
import { createServices, type ServiceInput } from '../../src/app/services.js';
import { buildApp } from '../../src/http/app.js';
import { createServiceMetrics } from '../../src/metrics/service-metrics.js';

export async function buildTestApp(input: ServiceInput): Promise<FastifyInstance> {
  // Process metrics (event loop, GC) are left out: several apps share one test process.
  const services = await createServices({ metrics: createServiceMetrics({ processMetrics: false }), ...input });
  const app = await buildApp(services);
  app.addHook('onClose', () => services.close());
  return app;
}
