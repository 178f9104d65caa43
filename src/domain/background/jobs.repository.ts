/**
 * The part of the `jobs` table the features see (the queue's own claim/lease SQL is in src/jobs/): queueing
 * a job, asking whether one is still unfinished, and forgetting finished ones. Times come from the
 * database's clock (`now()`), never from a process's: instances with skewed clocks agree on when a job is due.
 */
import { sql, type RawBuilder } from 'kysely';
import type { Executor } from '../../storage/database.js';

export interface NewJob {
  kind: string;
  payload: Record<string, unknown>;
  /** Attempts before the job fails for good. */
  maxAttempts: number;
  /** At most one unfinished job per singleton key; a second enqueue is a no-op. */
  singletonKey: string | null;
  /** Earliest start, counted from the database's `now()`; default 0 (due at once). */
  delayMs?: number;
}

/**
 * The one INSERT of a job, as SQL to run alone or to embed in a data-modifying CTE. With `from`, the row
 * is inserted once per row of that source (e.g. `FROM claimed`: only if the upload was claimed).
 * Returns `id`; no row when an unfinished job with the same singleton key exists.
 */
export function jobInsertSql(job: NewJob, from: RawBuilder<unknown> = sql``): RawBuilder<{ id: number }> {
  return sql<{ id: number }>`
    INSERT INTO jobs (kind, payload, run_at, max_attempts, singleton_key, created_at)
    SELECT ${job.kind}::text, ${JSON.stringify(job.payload)}::jsonb, now() + ${job.delayMs ?? 0}::integer * interval '1 millisecond',
           ${job.maxAttempts}::integer, ${job.singletonKey}::text, now()
    ${from}
    ON CONFLICT (singleton_key) WHERE state IN ('queued', 'running') DO NOTHING
    RETURNING id`;
}

/** @returns the new job's id, or null when an unfinished job with the same singleton key exists. */
export async function insertJob(db: Executor, job: NewJob): Promise<number | null> {
  const result = await jobInsertSql(job).execute(db);
  return result.rows[0]?.id ?? null;
}

/** True while a job with this singleton key is queued or running. */
export async function unfinishedJobExists(db: Executor, singletonKey: string): Promise<boolean> {
  const row = await db
    .selectFrom('jobs')
    .select('id')
    .where('singleton_key', '=', singletonKey)
    .where('state', 'in', ['queued', 'running'])
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
}

/** Deletes jobs finished more than `retentionMs` ago (database time). @returns how many. */
export async function deleteFinishedJobs(db: Executor, retentionMs: number): Promise<number> {
  const result = await db
    .deleteFrom('jobs')
    .where('state', 'in', ['done', 'failed'])
    .where('finished_at', '<', sql<Date>`now() - ${retentionMs}::bigint * interval '1 millisecond'`)
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}
