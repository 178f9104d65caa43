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

export async function openTestPglite(): Promise<DatabaseHandle> {
  const handle = await openDatabase({ databaseUrl: null, pgliteDir: null });
  await migrate(handle);
  return handle;
}

/** Creates a throw-away database next to the one TEST_DATABASE_URL names; close() drops it. */
export async function openTestPostgres(adminUrl: string): Promise<DatabaseHandle> {
  const name = `certdesk_t_${process.pid}_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  const handle = await openDatabase({ databaseUrl: url.toString(), pgliteDir: null, poolSize: 5 });
  await migrate(handle);
  const close = handle.close;
  handle.close = async () => {
    await close();
    const dropper = new pg.Client({ connectionString: adminUrl });
    await dropper.connect();
    try {
      await dropper.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    } finally {
      await dropper.end();
    }
  };
  return handle;
}
