/**
 * Every row of the tables a request could write, as text, for "nothing changed" checks: a refused
 * request must leave each of them exactly as it was (the whole row, every column).
 *
 * @example
 * const before = await snapshotTables(db);
 * await refusedRequest();
 * assert.deepEqual(await snapshotTables(db), before);
 */
import { sql } from 'kysely';
import type { Executor } from '../../src/storage/database.js';

/** The tables written by requests of customers and reviewers (not sessions, keys or clients' last use). */
export const WRITTEN_TABLES = [
  'orders',
  'order_counters',
  'order_events',
  'order_analysis_failures',
  'uploads',
  'jobs',
  'idempotency_keys',
  'certificates',
  'review_claims',
  'projects',
  'project_members',
  'webhook_endpoints',
  'webhook_events',
  'webhook_deliveries',
] as const;

/** Table → its rows as JSON text, sorted. */
export async function snapshotTables(db: Executor, tables: readonly string[] = WRITTEN_TABLES): Promise<Record<string, string[]>> {
  const out: Record<string, string[]> = {};
  for (const table of tables) {
    const result = await sql<{ row: string }>`SELECT to_jsonb(t)::text AS row FROM ${sql.table(table)} t`.execute(db);
    out[table] = result.rows.map((r) => r.row).sort();
  }
  return out;
}

/** One row of a table, whole, as JSON text (undefined when there is none). */
export async function rowOf(db: Executor, table: string, column: string, value: string): Promise<string | undefined> {
  const result = await sql<{ row: string }>`SELECT to_jsonb(t)::text AS row FROM ${sql.table(table)} t WHERE ${sql.ref(column)} = ${value}`.execute(db);
  return result.rows[0]?.row;
}
