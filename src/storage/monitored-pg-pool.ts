/**
 * The node-postgres pool as Kysely sees it, made safe for a server that restarts or stops:
 *
 * - every client the pool creates gets an `error` listener for its whole life. node-postgres removes
 *   its own listener while a client is checked out, and a client that emits `error` (57P01 when the
 *   server shuts down) with no listener would end the process;
 * - a client whose query failed at the connection level is released *with* that error, so the pool
 *   destroys it instead of handing a dead connection to the next caller;
 * - every failure (connect or query) is reported to the availability monitor.
 */
import type { PostgresCursor, PostgresPool, PostgresPoolClient, PostgresQueryResult } from 'kysely';
import type pg from 'pg';
import { isDatabaseUnavailable, type DatabaseAvailability } from './database-availability.js';

export class MonitoredPgPool implements PostgresPool {
  constructor(
    readonly pool: pg.Pool,
    private readonly availability: DatabaseAvailability,
  ) {
    pool.on('connect', (client) => {
      client.on('error', (err) => availability.observeError(err));
    });
    // The pool re-emits an idle client's error (already observed by the listener above); without a
    // listener here that re-emit would end the process.
    pool.on('error', () => undefined);
  }

  async connect(): Promise<PostgresPoolClient> {
    try {
      return new CheckedOutClient(await this.pool.connect(), this.availability);
    } catch (err) {
      this.availability.observeError(err);
      throw err;
    }
  }

  end(): Promise<void> {
    return this.pool.end();
  }
}

/** One checkout of a pool client: remembers a connection-level failure until release. */
class CheckedOutClient implements PostgresPoolClient {
  private connectionFailure: Error | undefined;

  constructor(
    private readonly client: pg.PoolClient,
    private readonly availability: DatabaseAvailability,
  ) {}

  query<R>(sql: string, parameters: ReadonlyArray<unknown>): Promise<PostgresQueryResult<R>>;
  query<R>(cursor: PostgresCursor<R>): PostgresCursor<R>;
  query<R>(sqlOrCursor: string | PostgresCursor<R>, parameters?: ReadonlyArray<unknown>): Promise<PostgresQueryResult<R>> | PostgresCursor<R> {
    if (typeof sqlOrCursor !== 'string') return this.client.query(sqlOrCursor as never) as PostgresCursor<R>;
    const result = this.client.query(sqlOrCursor, parameters as unknown[]) as unknown as Promise<PostgresQueryResult<R>>;
    // Observed on a branch of its own: the caller still gets (and handles) the original rejection.
    result.then(undefined, (err: unknown) => {
      this.availability.observeError(err);
      if (isDatabaseUnavailable(err)) this.connectionFailure ??= err as Error;
    });
    return result;
  }

  release(): void {
    this.client.release(this.connectionFailure);
  }
}
