/**
 * What the HTTP side does about a database outage: the one log line when it starts and the one when it
 * ends. The per-request answers are 503s with `Retry-After` that log nothing (a stack trace per request
 * during an outage once wrote 505 MB of logs in 40 s).
 */
import type { FastifyInstance } from 'fastify';

/** Logs outage start and end once each; stops listening when the app closes. */
export function logDatabaseOutages(app: FastifyInstance): void {
  const { availability, kind } = app.deps.database;
  const unsubscribe = availability.onChange((change) => {
    if (change.state === 'down') app.log.error({ database: { kind, reason: change.reason } }, 'database unavailable');
    else app.log.warn({ database: { kind, downtime_ms: change.downtimeMs } }, 'database available again');
  });
  app.addHook('onClose', async () => {
    unsubscribe();
  });
}
