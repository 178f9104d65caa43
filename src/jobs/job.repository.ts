/**
 * SQL of the durable job queue (table `jobs`, migrations/0002). Every time comparison takes `now` from the
 * caller's clock, so tests move time instead of sleeping, and all instances agree on the rules.
 */
import { sql } from 'kysely';
import type { Executor } from '../storage/database.js';

export interface JobRow {
  id: number;
  kind: string;
  payload: Record<string, unknown>;
  attempts: number;
  max_attempts: number;
}

export interface NewJob {
  kind: string;
  payload: Record<string, unknown>;
  runAt: Date;
  maxAttempts: number;
  /** At most one unfinished job per singleton key; a second enqueue is a no-op. */
  singletonKey: string | null;
}

/** @returns the new job's id, or null when an unfinished job with the same singleton key exists. */
export async function insertJob(db: Executor, job: NewJob, now: Date): Promise<number | null> {
  const result = await sql<{ id: number }>`
    INSERT INTO jobs (kind, payload, run_at, max_attempts, singleton_key, created_at)
    VALUES (${job.kind}, ${JSON.stringify(job.payload)}::jsonb, ${job.runAt}, ${job.maxAttempts}, ${job.singletonKey}, ${now})
    ON CONFLICT (singleton_key) WHERE state IN ('queued', 'running') DO NOTHING
    RETURNING id`.execute(db);
  return result.rows[0]?.id ?? null;
}

/**
 * Claims up to `limit` jobs: queued ones that are due, and running ones whose lease ran out (their worker
 * died). SKIP LOCKED lets any number of workers claim at once without waiting on each other or taking the
 * same job twice. Each claim counts as an attempt.
 */
export async function claimJobs(db: Executor, workerId: string, kinds: readonly string[], limit: number, now: Date, leaseMs: number): Promise<JobRow[]> {
  const until = new Date(now.getTime() + leaseMs);
  const result = await sql<JobRow>`
    UPDATE jobs SET state = 'running', attempts = attempts + 1, locked_by = ${workerId}, locked_until = ${until}
    WHERE id IN (
      SELECT id FROM jobs
      WHERE kind IN (${sql.join(kinds.map((k) => sql`${k}::text`))})
        AND ((state = 'queued' AND run_at <= ${now}) OR (state = 'running' AND locked_until < ${now}))
      ORDER BY run_at, id
      LIMIT ${limit}
      FOR UPDATE SKIP LOCKED)
    RETURNING id, kind, payload, attempts, max_attempts`.execute(db);
  return result.rows;
}

/** Extends the lease of a job this worker still holds. @returns false when the lease was lost. */
export async function renewLease(db: Executor, jobId: number, workerId: string, now: Date, leaseMs: number): Promise<boolean> {
  const result = await db
    .updateTable('jobs')
    .set({ locked_until: new Date(now.getTime() + leaseMs) })
    .where('id', '=', jobId)
    .where('locked_by', '=', workerId)
    .where('state', '=', 'running')
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** Marks a job done, if this worker still holds it. */
export async function completeJob(db: Executor, jobId: number, workerId: string, now: Date): Promise<boolean> {
  const result = await db
    .updateTable('jobs')
    .set({ state: 'done', finished_at: now, locked_by: null, locked_until: null, last_error: null })
    .where('id', '=', jobId)
    .where('locked_by', '=', workerId)
    .where('state', '=', 'running')
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** Puts a failed job back in the queue to run at `runAt`, if this worker still holds it. */
export async function retryJob(db: Executor, jobId: number, workerId: string, runAt: Date, error: string): Promise<boolean> {
  const result = await db
    .updateTable('jobs')
    .set({ state: 'queued', run_at: runAt, locked_by: null, locked_until: null, last_error: error })
    .where('id', '=', jobId)
    .where('locked_by', '=', workerId)
    .where('state', '=', 'running')
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** Marks a job failed for good (no attempts left). */
export async function failJob(db: Executor, jobId: number, workerId: string, now: Date, error: string): Promise<boolean> {
  const result = await db
    .updateTable('jobs')
    .set({ state: 'failed', finished_at: now, locked_by: null, locked_until: null, last_error: error })
    .where('id', '=', jobId)
    .where('locked_by', '=', workerId)
    .where('state', '=', 'running')
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** Deletes finished jobs older than `before`. @returns how many. */
export async function deleteFinishedJobs(db: Executor, before: Date): Promise<number> {
  const result = await db.deleteFrom('jobs').where('state', 'in', ['done', 'failed']).where('finished_at', '<', before).executeTakeFirst();
  return Number(result.numDeletedRows);
}

export interface JobStatusRow {
  id: number;
  kind: string;
  state: string;
  attempts: number;
  last_error: string | null;
  payload: Record<string, unknown>;
}

/** Jobs by singleton key or kind, for tests and operators. */
export async function findJobs(db: Executor, filter: { kind?: string; singletonKey?: string }): Promise<JobStatusRow[]> {
  let q = db.selectFrom('jobs').select(['id', 'kind', 'state', 'attempts', 'last_error', 'payload']).orderBy('id');
  if (filter.kind) q = q.where('kind', '=', filter.kind);
  if (filter.singletonKey) q = q.where('singleton_key', '=', filter.singletonKey);
  return (await q.execute()) as JobStatusRow[];
}
