/**
 * Opens the database: embedded PGlite in the data directory, or a PostgreSQL server through DATABASE_URL.
 * Both are driven by the same Kysely instance type, the same migrations and the same queries.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { Kysely, PostgresDialect, sql, type Transaction } from 'kysely';
import pg from 'pg';
import { PGlitePool } from './pglite-pool.js';
import { resultParsers } from './type-parsers.js';
import type { Database } from './schema.js';

export type Db = Kysely<Database>;
/** A repository takes either the database or an open transaction: the caller decides where one starts. */
export type Executor = Kysely<Database> | Transaction<Database>;

export interface DatabaseHandle {
  db: Db;
  kind: 'pglite' | 'postgres';
  /** The node-postgres pool (server only): COPY and other streaming work. */
  pgPool: pg.Pool | null;
  /** The PGlite instance behind its single-connection pool (embedded only). */
  pglite: PGlitePool | null;
  /** A short description that never contains a password. */
  description: string;
  close(): Promise<void>;
}

export class DatabaseUnavailableError extends Error {
  override name = 'DatabaseUnavailableError';
}

export interface OpenDatabaseOptions {
  databaseUrl: string | null;
  /** PGlite directory; null opens an in-memory PGlite (tests). */
  pgliteDir: string | null;
  poolSize?: number;
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
  if (options.databaseUrl) return openServer(options.databaseUrl, options.poolSize ?? 10);
  return openEmbedded(options.pgliteDir);
}

async function openServer(databaseUrl: string, poolSize: number): Promise<DatabaseHandle> {
  const pool = new pg.Pool({ connectionString: databaseUrl, max: poolSize, types: pgTypes, connectionTimeoutMillis: 5000 });
  // An idle client that errors (server restart) must not crash the process; the pool replaces it.
  pool.on('error', () => undefined);
  const description = `PostgreSQL ${redactUrl(databaseUrl)}`;
  try {
    const client = await pool.connect();
    client.release();
  } catch (err) {
    await pool.end().catch(() => undefined);
    throw new DatabaseUnavailableError(`cannot connect to ${description}: ${(err as Error).message}`);
  }
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  return { db, kind: 'postgres', pgPool: pool, pglite: null, description, close: () => db.destroy() };
}

async function openEmbedded(dir: string | null): Promise<DatabaseHandle> {
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
  return { db, kind: 'pglite', pgPool: null, pglite: pool, description, close: () => db.destroy() };
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
