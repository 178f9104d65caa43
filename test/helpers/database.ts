/**
 * The databases every storage-touching suite runs on: in-memory PGlite always, and a PostgreSQL server
 * when TEST_DATABASE_URL is set. Each `open()` gives a fresh, migrated database of its own (a new
 * database on the server), so suites may run in parallel.
 *
 * Suites use `describeOnEachDatabase`; `databaseTargets()` is for the few that open databases themselves.
 *
 * @example
 * describeOnEachDatabase('orders', (getDb) => {
 *   it('counts', async () => {
 *     const handle = getDb();
 *   });
 * });
 */
import { randomBytes } from 'node:crypto';
import { after, before, describe } from 'node:test';
import pg from 'pg';
import { openDatabase, type DatabaseHandle } from '../../src/storage/database.js';
import { migrate } from '../../src/storage/migrate.js';

export interface DatabaseTarget {
  name: 'pglite' | 'postgres';
  open(): Promise<DatabaseHandle>;
}

export function databaseTargets(): DatabaseTarget[] {
  const targets: DatabaseTarget[] = [{ name: 'pglite', open: openTestPglite }];
  const url = process.env.TEST_DATABASE_URL;
  if (url) targets.push({ name: 'postgres', open: () => openTestPostgres(url) });
  return targets;
}

/**
 * One `describe` block per database target, named `${name} on pglite` / `${name} on postgres`, with a
 * fresh migrated database opened before the block's tests and closed after them. `getDb()` returns it
 * (call it in hooks and tests, not while the block is being declared). The database is closed after the
 * body's own `after` hooks, so an application built on it can close first.
 */
export function describeOnEachDatabase(
  name: string,
  body: (getDb: () => DatabaseHandle, target: DatabaseTarget) => void,
): void {
  for (const target of databaseTargets()) {
    describe(`${name} on ${target.name}`, () => {
      let handle: DatabaseHandle | undefined;
      before(async () => {
        handle = await target.open();
      });
      const getDb = (): DatabaseHandle => {
        if (!handle) throw new Error(`the ${target.name} database is not open: call getDb() inside a hook or a test`);
        return handle;
      };
      body(getDb, target);
      // Registered after the body's hooks, so it runs after them.
      after(async () => {
        await handle?.close();
      });
    });
  }
}

/**
 * Each target with an empty, unmigrated database (for tests of a migration on a database that already
 * holds data: they migrate up to it, load rows, then run it). The PostgreSQL one is dropped on close().
 */
export function unmigratedDatabaseTargets(prefix: string): DatabaseTarget[] {
  const targets: DatabaseTarget[] = [{ name: 'pglite', open: () => openDatabase({ databaseUrl: null, pgliteDir: null }) }];
  const adminUrl = process.env.TEST_DATABASE_URL;
  if (adminUrl) targets.push({ name: 'postgres', open: () => openThrowawayPostgres(adminUrl, prefix, 3) });
  return targets;
}

/** An open handle on a new throw-away database next to `adminUrl`'s; close() also drops it. */
async function openThrowawayPostgres(adminUrl: string, prefix: string, poolSize: number): Promise<DatabaseHandle> {
  const database = await createThrowawayDatabase(adminUrl, prefix);
  const handle = await openDatabase({ databaseUrl: database.url, pgliteDir: null, poolSize });
  const close = handle.close;
  handle.close = async () => {
    await close();
    await database.drop();
  };
  return handle;
}

export async function openTestPglite(): Promise<DatabaseHandle> {
  const handle = await openDatabase({ databaseUrl: null, pgliteDir: null });
  await migrate(handle);
  return handle;
}

/** A database made for one suite or run, next to the one `adminUrl` names. */
export interface ThrowawayDatabase {
  name: string;
  url: string;
  /** Drops it (the connections still open to it included). */
  drop(): Promise<void>;
}

async function adminQuery(adminUrl: string, text: string): Promise<void> {
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    await admin.query(text);
  } finally {
    await admin.end();
  }
}

/** Creates `certdesk_${prefix}_<pid>_<random>` next to `adminUrl`'s database. */
export async function createThrowawayDatabase(adminUrl: string, prefix: string): Promise<ThrowawayDatabase> {
  const name = `certdesk_${prefix}_${process.pid}_${randomBytes(4).toString('hex')}`;
  await adminQuery(adminUrl, `CREATE DATABASE ${name}`);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return { name, url: url.toString(), drop: () => adminQuery(adminUrl, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`) };
}

/** Creates a throw-away database next to the one TEST_DATABASE_URL names; close() drops it. */
export async function openTestPostgres(adminUrl: string): Promise<DatabaseHandle> {
  const handle = await openThrowawayPostgres(adminUrl, 't', 5);
  await migrate(handle);
  return handle;
}
