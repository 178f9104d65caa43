/**
 * The databases every storage-touching suite runs on: in-memory PGlite always, and a PostgreSQL server
 * when TEST_DATABASE_URL is set. Each `open()` gives a fresh, migrated database of its own (a new
 * database on the server), so suites may run in parallel.
 *
 * @example
 * for (const target of databaseTargets()) {
 *   describe(`orders on ${target.name}`, () => {
 *     let db: DatabaseHandle;
 *     before(async () => { db = await target.open(); });
 *     after(() => db.close());
 *   });
 * }
 */
import { randomBytes } from 'node:crypto';
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
