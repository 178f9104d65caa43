/**
 * How `serve` stops on SIGTERM or SIGINT: drain the HTTP server (readiness 503 first, no new
 * connections, in-flight requests finish, keep-alive connections closed after their response), close
 * the app and the database, exit 0; all within the grace period, after which the process exits 1
 * whatever is still running. A second signal exits at once.
 */
import type { FastifyInstance } from 'fastify';

export interface StopOptions {
  app: FastifyInstance;
  /** Closes what the app does not own (the database). */
  closeResources: () => Promise<void>;
  gracePeriodMs: number;
  /** The signals that stop the server (default SIGINT and SIGTERM; a cluster worker takes SIGTERM only). */
  signals?: NodeJS.Signals[];
}

/** Time kept from the grace period for closing the app and the database after the drain. */
function drainBudget(gracePeriodMs: number): number {
  return Math.max(gracePeriodMs - 2000, Math.floor(gracePeriodMs * 0.75));
}

/** Installs the handlers; returns what removes them again (a start-up that fails after this undoes it). */
export function stopOnSignals({ app, closeResources, gracePeriodMs, signals = ['SIGINT', 'SIGTERM'] }: StopOptions): () => void {
  let stopping = false;
  const stop = async (signal: NodeJS.Signals): Promise<void> => {
    if (stopping) {
      app.log.warn({ signal }, 'second signal: exiting now');
      process.exit(1);
    }
    stopping = true;
    setTimeout(() => {
      app.log.error({ grace_period_ms: gracePeriodMs }, 'grace period over: exiting with work unfinished');
      process.exit(1);
    }, gracePeriodMs).unref();
    app.log.info({ signal, grace_period_ms: gracePeriodMs, ...app.drain.load }, 'draining: readiness is 503, no new connections');
    const { forced } = await app.drain.drain(drainBudget(gracePeriodMs));
    if (forced > 0) app.log.warn({ connections: forced }, 'drain deadline: connections closed with requests unfinished');
    try {
      await app.close();
      await closeResources();
    } catch (err) {
      app.log.error({ err }, 'error while stopping');
      process.exit(1);
    }
    app.log.info('stopped');
    process.exit(0);
  };
  const onSignal = (signal: NodeJS.Signals) => void stop(signal);
  for (const name of signals) process.on(name, onSignal);
  return () => {
    for (const name of signals) process.off(name, onSignal);
  };
}
