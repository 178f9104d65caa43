/**
 * The one HTTP server of a process, composed here because it joins two features that do not know each
 * other: the application of src/http/ (API, token service, operational routes, the public certificate
 * fast path) and the web pages of src/web/, mounted on it as one encapsulated plugin. Nothing below the
 * composition root imports upwards to do this (docs/architecture.md, "Layers").
 *
 * @example
 * const server = await buildServer(await createServices({ config, database }));
 * await server.listen({ host, port });
 */
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../http/app.js';
import { webPlugin } from '../web/index.js';
import type { Services } from './services.js';

export async function buildServer(services: Services): Promise<FastifyInstance> {
  const app = await buildApp(services);
  await app.register(webPlugin);
  return app;
}
