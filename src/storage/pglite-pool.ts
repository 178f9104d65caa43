/**
 * Adapts one embedded PGlite instance to the pool interface Kysely's PostgresDialect expects.
 * PGlite is a single connection, so a "pool" hands out that connection to one holder at a time:
 * connect() waits until the previous holder releases it, which keeps transactions from interleaving.
 *
 * Why our own adapter and not `kysely-pglite` (0.6): that package ships a CLI with oclif, chokidar and
 * kysely-codegen as runtime dependencies, for a dialect this ~60-line adapter covers; and its driver
 * needs the same command tag we need here.
 */
import type { PGlite } from '@electric-sql/pglite';
import type { PostgresPool, PostgresPoolClient, PostgresQueryResult } from 'kysely';

type Command = PostgresQueryResult<unknown>['command'];
const COMMANDS = new Set(['INSERT', 'UPDATE', 'DELETE', 'MERGE', 'SELECT']);

/**
 * Kysely reads `numAffectedRows` only for INSERT/UPDATE/DELETE/MERGE results. PGlite's query result has
 * `affectedRows` but no command tag, so the statement's first keyword stands in for it. A statement that
 * starts with WITH counts as SELECT here (node-postgres would name its final command): callers of such
 * statements must not rely on `numAffectedRows`.
 */
function commandOf(sql: string): Command {
  const word = /^\s*(\w+)/.exec(sql)?.[1]?.toUpperCase() ?? 'SELECT';
  return (COMMANDS.has(word) ? word : 'SELECT') as Command;
}

export class PGlitePool implements PostgresPool {
  #tail: Promise<void> = Promise.resolve();

  constructor(readonly pglite: PGlite) {}

  /** Runs fn while holding the single connection (also used for COPY, outside Kysely). */
  async exclusive<T>(fn: (pglite: PGlite) => Promise<T>): Promise<T> {
    const client = await this.connect();
    try {
      return await fn(this.pglite);
    } finally {
      client.release();
    }
  }

  connect(): Promise<PostgresPoolClient> {
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const acquired = this.#tail;
    this.#tail = acquired.then(() => released);
    const pglite = this.pglite;
    return acquired.then(() => {
      let done = false;
      const client = {
        async query<R>(sql: string, parameters: ReadonlyArray<unknown>): Promise<PostgresQueryResult<R>> {
          const result = await pglite.query<R>(sql, [...parameters]);
          return { command: commandOf(sql), rowCount: result.affectedRows ?? result.rows.length, rows: result.rows };
        },
        release() {
          if (done) return;
          done = true;
          release();
        },
      };
      return client as PostgresPoolClient;
    });
  }

  async end(): Promise<void> {
    await this.#tail;
    await this.pglite.close();
  }
}
