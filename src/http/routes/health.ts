/** Liveness and readiness for load balancers: /healthz never touches the database, /readyz does. */
import type { FastifyPluginAsync } from 'fastify';
import { ping } from '../../storage/database.js';

export const healthRoutes: FastifyPluginAsync = async (app) => {
  app.get('/healthz', async () => ({ status: 'ok' }));
  app.get('/readyz', async (_req, reply) => {
    const up = await ping(app.deps.database.db);
    reply.code(up ? 200 : 503);
    return { status: up ? 'ok' : 'unavailable', database: { kind: app.deps.database.kind, status: up ? 'up' : 'down' } };
  });
};
