/**
 * The real application over the real composition root, for in-process tests: `createServices` then
 * `buildServer` (src/app/http-server.ts: the API and the web pages), with the services closed when the app closes (the database stays the test's).
 *
 * @example
 * const app = await buildTestApp({ config, database });
 * const res = await app.inject({ method: 'GET', url: '/healthz' });
 * await app.close();
 *
 * Every HTML page a test receives through `app.inject` is audited against the strict Content-Security-
 * Policy (page-audit.ts): a page with an inline script or event handler fails the test that fetched it.
 */
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { createServices, type ServiceInput } from '../../src/app/services.js';
import { buildServer } from '../../src/app/http-server.js';
import { createServiceMetrics } from '../../src/metrics/service-metrics.js';
import { auditHtmlResponse } from './page-audit.js';

export async function buildTestApp(input: ServiceInput & { sequenceLog?: boolean }): Promise<FastifyInstance> {
  // Process metrics (event loop, GC) are left out: several apps share one test process.
  const { sequenceLog = true, ...serviceInput } = input;
  const services = await createServices({ metrics: createServiceMetrics({ processMetrics: false }), ...serviceInput });
  const app = await buildServer(services);
  // As in `serve`, the transparency log's sequencer runs (its rounds are small transactions every 200 ms),
  // so certificates reach the log as they do in production; tests that drive it by hand turn it off.
  // One round first, so the log's first checkpoint exists before the test starts (a test that compares
  // the object storage before and after a request does not see it appear meanwhile).
  if (sequenceLog) {
    await services.transparencyLog.sequencer.runRound();
    services.transparencyLog.sequencer.start();
  }
  app.addHook('onClose', () => services.close());
  auditInjectedPages(app);
  return app;
}

/** Wraps `app.inject(options)` (the promise form every suite uses) so each HTML answer is audited. */
function auditInjectedPages(app: FastifyInstance): void {
  const inject = app.inject.bind(app) as (...args: unknown[]) => unknown;
  app.inject = ((...args: unknown[]) => {
    const [options, callback] = args;
    if (options === undefined || callback !== undefined) return inject(...args);
    return (inject(options) as Promise<LightMyRequestResponse>).then((res) => {
      const url = typeof options === 'string' ? options : String((options as { url?: unknown }).url ?? '');
      auditHtmlResponse(res, `${res.statusCode} ${url}`);
      return res;
    });
  }) as FastifyInstance['inject'];
}
