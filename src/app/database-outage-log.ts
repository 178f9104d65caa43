/**
 * What a process does about a database outage in its log: one line when it starts and one when it ends,
 * whoever noticed it (a request, the job worker, a health probe). The per-request answers are 503s with
 * `Retry-After` that log nothing (a stack trace per request during an outage once wrote 505 MB of logs
 * in 40 s).
 */
import type { Logger } from 'pino';
import type { DatabaseHandle } from '../storage/database.js';

/** Logs outage start and end once each; returns the function that stops listening. */
export function logDatabaseOutages(database: DatabaseHandle, log: Logger): () => void {
  const { availability, kind } = database;
  return availability.onChange((change) => {
    if (change.state === 'down') log.error({ database: { kind, reason: change.reason } }, 'database unavailable');
    else log.warn({ database: { kind, downtime_ms: change.downtimeMs } }, 'database available again');
  });
}
