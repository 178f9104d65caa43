/**
 * Opens the database: embedded PGlite in the data directory, or a PostgreSQL server through DATABASE_URL.
 * Both are driven by the same Kysely instance type, the same migrations and the same queries.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { Kysely, PostgresDialect, sql, type Transaction } from 'kysely';
import pg from 'pg';
import { DatabaseAvailability, DatabaseUnavailableError } from './database-availability.js';
import { MAX_PREPARED_STATEMENTS, MonitoredPgPool } from './monitored-pg-pool.js';
import { PGlitePool } from './pglite-pool.js';
import { DatabaseNotifications } from './notifications.js';
import { ownEmbeddedDirectory } from './embedded/embedded-owner.js';
import type { OwnerRole } from './embedded/data-dir-lock.js';
import { resultParsers } from './type-parsers.js';
import { compileWasmWithLiftoffOnly } from './embedded/wasm-tiering.js';
import type { Database } from './schema.js';

export type Db = Kysely<Database>;
/** A repository takes either the database or an open transaction: the caller decides where one starts. */
export type Executor = Kysely<Database> | Transaction<Database>;

export interface DatabaseHandle {
  db: Db;
  /**
   * The same database for the listing's hot reads (order-listing.repository.ts): on a server, a second pool
   * whose sessions plan each prepared statement once (`plan_cache_mode = force_generic_plan`). PostgreSQL's
   * default re-plans a statement at every execution when it judges a plan for the given values better; for
   * the listing's first read (one statement: counts, visible projects, ids and versions) that planning cost
   * more than executing it, and its plan never depends on the values (every scope reads its own keyset
   * index). Only statements written for it go there: the rest of the service keeps per-value plans, which
   * its queue and outbox reads (`LIMIT $n` on tables that grow) need. The same as `db` on PGlite.
   */
  hotReads: Db;
  kind: 'pglite' | 'postgres';
  /** The node-postgres pool (server only): COPY and other streaming work. */
  pgPool: pg.Pool | null;
  /** The PGlite instance behind its single-connection pool (embedded only). */
  pglite: PGlitePool | null;
  /** A short description that never contains a password. */
  description: string;
  /** Outage detection: connection-level failures start one, a background probe ends it. */
  availability: DatabaseAvailability;
  /** LISTEN/NOTIFY between the processes sharing the server (PostgreSQL only; null on PGlite). */
  notifications?: DatabaseNotifications | null;
  /** Connections of each pool right now: the main one and the listing's hot reads (PostgreSQL only; null on PGlite). */
  poolUsage(): Record<PoolName, PoolUsage> | null;
  close(): Promise<void>;
}

/** `main` serves everything but the listing's hot reads (`hot_reads`). */
export type PoolName = 'main' | 'hot_reads';

export interface PoolUsage {
  total: number;
  idle: number;
  /** Callers waiting for a connection. */
  waiting: number;
}

export { DatabaseUnavailableError };

export interface OpenDatabaseOptions {
  databaseUrl: string | null;
  /** PGlite directory; null opens an in-memory PGlite (tests). */
  pgliteDir: string | null;
  poolSize?: number;
  /**
   * Server only: run parameterized statements as named prepared statements (default true). Off for
   * PGlite shared by `serve` over its socket, which runs every client in its one session: the names of
   * two processes would collide there.
   */
  preparedStatements?: boolean;
  /** Embedded only: who opens the directory (default `command`); `serve` also shares it over a unix socket. */
  owner?: OwnerRole;
}

const pgTypes = {
  getTypeParser(oid: number, format?: string) {
    const custom = resultParsers[oid];
    if (custom && format !== 'binary') return custom;
    return pg.types.getTypeParser(oid, format as 'text');
  },
};

export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return 'postgres://(unparseable)';
  }
}

export async function openDatabase(options: OpenDatabaseOptions): Promise<DatabaseHandle> {
  if (options.databaseUrl) return openServer(options.databaseUrl, options.poolSize ?? 10, options.preparedStatements ?? true);
  const dir = options.pgliteDir;
  // One process per directory, or writes are lost: see embedded/embedded-owner.ts.
  return dir ? ownEmbeddedDirectory(dir, options.owner ?? 'command', () => openEmbedded(dir)) : openEmbedded(null);
}

/**
 * The share of a process's connections that serves the listing's hot reads (DatabaseHandle.hotReads): the
 * two pools together never hold more than `poolSize` connections (at least one each), so a server's
 * connection budget (max_connections across a fleet) is what it was with one pool.
 */
export function splitPoolSize(poolSize: number): { main: number; hot: number } {
  const hot = Math.max(1, Math.round(poolSize * 0.3));
  return { main: Math.max(1, poolSize - hot), hot };
}

function usageOf(pool: pg.Pool): PoolUsage {
  return { total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount };
}

async function openServer(databaseUrl: string, poolSize: number, preparedStatements: boolean): Promise<DatabaseHandle> {
  const sizes = splitPoolSize(poolSize);
  const pool = new pg.Pool({ connectionString: databaseUrl, max: sizes.main, types: pgTypes, connectionTimeoutMillis: 5000 });
  const availability = new DatabaseAvailability({ probe: () => pool.query('SELECT 1') });
  const monitored = new MonitoredPgPool(pool, availability, preparedStatements ? MAX_PREPARED_STATEMENTS : 0);
  const description = `PostgreSQL ${redactUrl(databaseUrl)}`;
  try {
    const client = await pool.connect();
    client.release();
  } catch (err) {
    await pool.end().catch(() => undefined);
    throw new DatabaseUnavailableError(`cannot connect to ${description}: ${(err as Error).message}`);
  }
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool: monitored }) });
  // Connects on its first query (a command that lists nothing never opens it).
  const hotPool = new pg.Pool({
    connectionString: databaseUrl,
    max: sizes.hot,
    types: pgTypes,
    connectionTimeoutMillis: 5000,
    options: '-c plan_cache_mode=force_generic_plan',
  });
  const hotReads = new Kysely<Database>({ dialect: new PostgresDialect({ pool: new MonitoredPgPool(hotPool, availability, preparedStatements ? MAX_PREPARED_STATEMENTS : 0) }) });
  // Connects with its first subscriber (a process that only runs a command never listens).
  const notifications = new DatabaseNotifications(databaseUrl);
  return {
    db,
    hotReads,
    kind: 'postgres',
    pgPool: pool,
    pglite: null,
    description,
    availability,
    notifications,
    poolUsage: () => ({ main: usageOf(pool), hot_reads: usageOf(hotPool) }),
    close: async () => {
      availability.close();
      await notifications.close();
      await Promise.all([db.destroy(), hotReads.destroy()]);
    },
  };
}

async function openEmbedded(dir: string | null): Promise<DatabaseHandle> {
  // Before PGlite compiles its WebAssembly: no second, optimized copy of PostgreSQL's code (wasm-tiering.ts).
  compileWasmWithLiftoffOnly();
  const { PGlite } = await import('@electric-sql/pglite');
  if (dir) {
    try {
      await fs.mkdir(dir, { recursive: true });
      await fs.access(dir, fs.constants.W_OK);
    } catch (err) {
      throw new DatabaseUnavailableError(`data directory ${dir} is not writable: ${(err as Error).message}`);
    }
  }
  let instance;
  try {
    instance = new PGlite({ dataDir: dir ?? undefined, parsers: resultParsers });
    await instance.waitReady;
  } catch (err) {
    throw new DatabaseUnavailableError(`cannot open the embedded database in ${dir ?? 'memory'}: ${(err as Error).message}`);
  }
  const pool = new PGlitePool(instance);
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  const description = dir ? `embedded PGlite in ${path.resolve(dir)}` : 'embedded PGlite in memory';
  // In-process: it has no connection to lose, so it is never reported down.
  const availability = new DatabaseAvailability({ probe: () => instance.query('SELECT 1') });
  return {
    db,
    hotReads: db,
    kind: 'pglite',
    pgPool: null,
    pglite: pool,
    description,
    availability,
    poolUsage: () => null,
    close: async () => {
      availability.close();
      await db.destroy();
    },
  };
}

/** True when the database answers a trivial query (readiness). */
export async function ping(db: Db): Promise<boolean> {
  try {
    await sql`SELECT 1`.execute(db);
    return true;
  } catch {
    return false;
  }
}
