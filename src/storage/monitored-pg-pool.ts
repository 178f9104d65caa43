/**
 * The node-postgres pool as Kysely sees it, made safe for a server that restarts or stops, and cheap per query:
 *
 * - every client the pool creates gets an `error` listener for its whole life. node-postgres removes
 *   its own listener while a client is checked out, and a client that emits `error` (57P01 when the
 *   server shuts down) with no listener would end the process;
 * - a client whose query failed at the connection level is released *with* that error, so the pool
 *   destroys it instead of handing a dead connection to the next caller;
 * - every failure (connect or query) is reported to the availability monitor;
 * - parameterized statements run as named prepared statements (StatementNames): PostgreSQL parses and
 *   plans each text once per connection instead of at every execution;
 * - queries go through node-postgres' callback form, not the promise it returns (see CheckedOutClient.query).
 */
import type { PostgresCursor, PostgresPool, PostgresPoolClient, PostgresQueryResult } from 'kysely';
import type pg from 'pg';
import { isDatabaseUnavailable, type DatabaseAvailability } from './database-availability.js';

/** Distinct statement texts prepared per pool; texts beyond it run unnamed, as every statement used to. */
export const MAX_PREPARED_STATEMENTS = 256;

/**
 * A name per parameterized SQL text, the same on every connection of one pool. Kysely sends unnamed
 * statements, so PostgreSQL parsed and planned every query again: measured on the listing at 32
 * connections, a `limit=1` page cost the database 0.44 ms of CPU unnamed and 0.23 ms prepared, a page of
 * 200 orders 1.00 ms and 0.77 ms. Texts without parameters stay on the simple protocol (migrations send
 * several statements in one text, which a prepared statement cannot hold). Names are never reused for
 * another text; the cap bounds what a connection keeps on the server when texts vary. Repositories pass
 * lists as one array parameter (storage/array-literal.ts) rather than IN lists, so the request paths keep
 * a fixed set of texts.
 */
export class StatementNames {
  private readonly names = new Map<string, string>();

  constructor(private readonly max = MAX_PREPARED_STATEMENTS) {}

  /** The statement's name, or undefined: run it unnamed (no parameters, or the cap is reached). */
  nameFor(text: string, parameterCount: number): string | undefined {
    if (parameterCount === 0) return undefined;
    let name = this.names.get(text);
    if (name === undefined && this.names.size < this.max) {
      name = `certdesk_${this.names.size}`;
      this.names.set(text, name);
    }
    return name;
  }

  get size(): number {
    return this.names.size;
  }
}

/**
 * A prepared statement whose result columns changed under it (`SELECT *` after an online migration added a
 * column): PostgreSQL refuses every later execution on that connection, so the connection is replaced.
 */
export function isStalePreparedStatement(err: unknown): boolean {
  const { code, routine, message } = (err ?? {}) as { code?: unknown; routine?: unknown; message?: unknown };
  if (code !== '0A000') return false;
  // The server's function that raises it names it whatever the server's message language (lc_messages).
  return routine === 'RevalidateCachedQuery' || (typeof message === 'string' && message.includes('cached plan must not change result type'));
}

export class MonitoredPgPool implements PostgresPool {
  /**
   * One wrapper per pooled client, reused at every checkout: Kysely keys its connection objects by the
   * client it is handed (a WeakMap), so a fresh wrapper per checkout made it build and register a new
   * connection for every query.
   */
  private readonly wrappers = new WeakMap<pg.PoolClient, CheckedOutClient>();
  private readonly statements: StatementNames;

  /** @param maxPreparedStatements distinct texts run as prepared statements; 0 runs every statement unnamed. */
  constructor(
    readonly pool: pg.Pool,
    private readonly availability: DatabaseAvailability,
    maxPreparedStatements = MAX_PREPARED_STATEMENTS,
  ) {
    this.statements = new StatementNames(maxPreparedStatements);
    pool.on('connect', (client) => {
      client.on('error', (err) => availability.observeError(err));
    });
    // The pool re-emits an idle client's error (already observed by the listener above); without a
    // listener here that re-emit would end the process.
    pool.on('error', () => undefined);
  }

  async connect(): Promise<PostgresPoolClient> {
    try {
      const client = await this.pool.connect();
      let wrapper = this.wrappers.get(client);
      if (!wrapper) {
        wrapper = new CheckedOutClient(client, this.availability, this.statements);
        this.wrappers.set(client, wrapper);
      }
      wrapper.checkedOut();
      return wrapper;
    } catch (err) {
      this.availability.observeError(err);
      throw err;
    }
  }

  end(): Promise<void> {
    return this.pool.end();
  }
}

/** A pool client as Kysely uses it: remembers a failure that condemns the connection until its release. */
class CheckedOutClient implements PostgresPoolClient {
  private connectionFailure: Error | undefined;

  constructor(
    private readonly client: pg.PoolClient,
    private readonly availability: DatabaseAvailability,
    private readonly statements: StatementNames,
  ) {}

  /** Starts a checkout (the pool hands a client to one caller at a time). */
  checkedOut(): void {
    this.connectionFailure = undefined;
  }

  query<R>(sql: string, parameters: ReadonlyArray<unknown>): Promise<PostgresQueryResult<R>>;
  query<R>(cursor: PostgresCursor<R>): PostgresCursor<R>;
  query<R>(sqlOrCursor: string | PostgresCursor<R>, parameters?: ReadonlyArray<unknown>): Promise<PostgresQueryResult<R>> | PostgresCursor<R> {
    if (typeof sqlOrCursor !== 'string') return this.client.query(sqlOrCursor as never) as PostgresCursor<R>;
    const values = (parameters ?? []) as unknown[];
    const name = this.statements.nameFor(sqlOrCursor, values.length);
    // The callback form with a promise of our own, not the promise node-postgres builds around a query:
    // with its promise, results stayed reachable long enough to be promoted to the old generation. Over
    // 1,050 sequential pages of 201 orders (--trace-gc-nvp), scavenges promoted 168 MB with its promise
    // and 1.4 MB with the callback, and the driver's CPU per page fell from 0.83 to 0.47 ms; a whole
    // listing page from 2.2 to 1.4 ms. docs/benchmarks.md has the figures under load.
    return new Promise<PostgresQueryResult<R>>((resolve, reject) => {
      this.client.query<never>({ text: sqlOrCursor, values, name }, (err: Error | undefined, result) => {
        if (!err) return resolve(result as unknown as PostgresQueryResult<R>);
        this.availability.observeError(err);
        if (isDatabaseUnavailable(err) || isStalePreparedStatement(err)) this.connectionFailure ??= err;
        reject(err);
      });
    });
  }

  release(): void {
    this.client.release(this.connectionFailure);
  }
}
