/**
 * Liveness and readiness for load balancers: /healthz never touches the database, /readyz does.
 * /readyz answers 503 while the database cannot be reached and as soon as the server starts draining
 * for a stop (so a load balancer sends no new work to an instance about to go away).
 */
import type { FastifyPluginAsync } from 'fastify';
import { ping } from '../../storage/database.js';

export const healthRoutes: FastifyPluginAsync = async (app) => {
  app.get('/healthz', async () => ({ status: 'ok' }));
  app.get('/readyz', async (_req, reply) => {
    const { kind, availability } = app.services.database;
    if (app.drain?.draining) {
      reply.code(503);
      return { status: 'draining', database: { kind, status: availability.isUp ? 'up' : 'down' } };
    }
    const up = await ping(app.services.database.db);
    reply.code(up ? 200 : 503);
    return { status: up ? 'ok' : 'unavailable', database: { kind, status: up ? 'up' : 'down' } };
  });
};
