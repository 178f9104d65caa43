/**
 * One connection held for a multi-statement script (migrations, COPY): the pg client of the pool, or the
 * PGlite instance under its exclusive lock. PGlite's extended-protocol query() takes one statement, so
 * parameterless scripts go through exec() there.
 */
import type { DatabaseHandle } from './database.js';

export type RunSql = (text: string, params?: unknown[]) => Promise<Record<string, unknown>[]>;

export async function withScriptConnection<T>(handle: DatabaseHandle, fn: (run: RunSql) => Promise<T>): Promise<T> {
  if (handle.pgPool) {
    const client = await handle.pgPool.connect();
    try {
      return await fn(async (text, params) => (await client.query(text, params)).rows);
    } finally {
      client.release();
    }
  }
  if (!handle.pglite) throw new Error('database handle has neither a pool nor PGlite');
  return handle.pglite.exclusive((pglite) =>
    fn(async (text, params) => {
      if (params && params.length > 0) return (await pglite.query<Record<string, unknown>>(text, params)).rows;
      const results = await pglite.exec(text);
      return (results.at(-1)?.rows ?? []) as Record<string, unknown>[];
    }),
  );
}
