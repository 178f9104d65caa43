/**
 * SQL of the durable job queue (table `jobs`, migrations/0002 and 0003): claims, leases, outcomes, and
 * the operators' views. Every time is the database's (`now()`), never a process's clock: instances whose
 * clocks disagree still agree on when a job is due and when a lease ran out. (Queueing a job is in
 * domain/background/jobs.repository.ts, where the features that queue jobs see it.)
 */
import { sql } from 'kysely';
import type { Executor } from '../storage/database.js';
import { arrayLiteral } from '../storage/array-literal.js';
import { LIVE_SESSION_PREFIX } from '../storage/notifications.js';
import type { JobFailureKind, JobState } from '../storage/schema.js';

export interface JobRow {
  id: number;
  kind: string;
  payload: Record<string, unknown>;
  attempts: number;
  max_attempts: number;
  /** The error of the previous attempt, if any. */
  last_error: string | null;
}

const ms = (value: number) => sql`${Math.max(0, Math.round(value))}::bigint * interval '1 millisecond'`;

/**
 * Claims up to `limit` jobs: queued ones that are due, and running ones whose lease ran out (their worker
 * died). SKIP LOCKED lets any number of workers claim at once without waiting on each other or taking the
 * same job twice. Each claim counts as an attempt.
 */
export async function claimJobs(db: Executor, workerId: string, kinds: readonly string[], limit: number, leaseMs: number, session: string | null = null): Promise<JobRow[]> {
  const result = await sql<JobRow>`
    UPDATE jobs SET state = 'running', attempts = attempts + 1, locked_by = ${workerId}, locked_until = now() + ${ms(leaseMs)}, locked_session = ${session}::text
    WHERE id IN (
      SELECT id FROM jobs
      WHERE kind IN (${sql.join(kinds.map((k) => sql`${k}::text`))})
        AND ((state = 'queued' AND run_at <= now()) OR (state = 'running' AND locked_until < now()))
      ORDER BY run_at, id
      LIMIT ${limit}
      FOR UPDATE SKIP LOCKED)
    RETURNING id, kind, payload, attempts, max_attempts, last_error`.execute(db);
  return result.rows;
}

const held = (jobId: number, workerId: string) => sql<boolean>`id = ${jobId} AND locked_by = ${workerId} AND state = 'running'`;

/** Extends the lease of a job this worker still holds. @returns false when the lease was lost. */
export async function renewLease(db: Executor, jobId: number, workerId: string, leaseMs: number): Promise<boolean> {
  const result = await sql`UPDATE jobs SET locked_until = now() + ${ms(leaseMs)} WHERE ${held(jobId, workerId)} RETURNING id`.execute(db);
  return result.rows.length === 1;
}

/** Marks a job done, if this worker still holds it. */
export async function completeJob(db: Executor, jobId: number, workerId: string): Promise<boolean> {
  const result = await sql`
    UPDATE jobs SET state = 'done', finished_at = now(), locked_by = NULL, locked_until = NULL, last_error = NULL
    WHERE ${held(jobId, workerId)} RETURNING id`.execute(db);
  return result.rows.length === 1;
}

/** Puts a failed job back in the queue to run `delayMs` from now (database time), if this worker still holds it. */
export async function retryJob(db: Executor, jobId: number, workerId: string, delayMs: number, error: string): Promise<boolean> {
  const result = await sql`
    UPDATE jobs SET state = 'queued', run_at = now() + ${ms(delayMs)}, locked_by = NULL, locked_until = NULL, last_error = ${error}
    WHERE ${held(jobId, workerId)} RETURNING id`.execute(db);
  return result.rows.length === 1;
}

/**
 * Marks a job failed for good, if this worker still holds it; run inside the transaction of the
 * final-failure hook, so the job and what the hook writes commit together.
 */
export async function failJob(db: Executor, jobId: number, workerId: string, error: string, kind: JobFailureKind): Promise<boolean> {
  const result = await sql`
    UPDATE jobs SET state = 'failed', finished_at = now(), locked_by = NULL, locked_until = NULL, last_error = ${error}, failure_kind = ${kind}
    WHERE ${held(jobId, workerId)} RETURNING id`.execute(db);
  return result.rows.length === 1;
}

/**
 * Records an attempt's error on a job this worker still holds, leaving it claimed (its final-failure
 * transaction rolled back: the job waits for its lease to run out and is claimed again).
 */
export async function noteJobError(db: Executor, jobId: number, workerId: string, error: string): Promise<void> {
  await sql`UPDATE jobs SET last_error = ${error} WHERE ${held(jobId, workerId)}`.execute(db);
}

export interface JobStatusRow {
  id: number;
  kind: string;
  state: string;
  attempts: number;
  max_attempts: number;
  last_error: string | null;
  failure_kind: JobFailureKind | null;
  payload: Record<string, unknown>;
  run_at: Date;
  created_at: Date;
  finished_at: Date | null;
}

/** Jobs by state, singleton key or kind, oldest first (operators and tests). */
export async function findJobs(db: Executor, filter: { kind?: string; singletonKey?: string; states?: readonly JobState[]; limit?: number } = {}): Promise<JobStatusRow[]> {
  let q = db
    .selectFrom('jobs')
    .select(['id', 'kind', 'state', 'attempts', 'max_attempts', 'last_error', 'failure_kind', 'payload', 'run_at', 'created_at', 'finished_at'])
    .orderBy('id');
  if (filter.kind) q = q.where('kind', '=', filter.kind);
  if (filter.singletonKey) q = q.where('singleton_key', '=', filter.singletonKey);
  if (filter.states) q = q.where('state', 'in', [...filter.states]);
  if (filter.limit) q = q.limit(filter.limit);
  return (await q.execute()) as JobStatusRow[];
}

/**
 * Puts a failed job back in the queue, due now, with its attempts counted from zero (an operator's
 * `certdesk jobs retry`). @returns false when the job does not exist or has not failed.
 */
export async function requeueFailedJob(db: Executor, jobId: number): Promise<boolean> {
  const result = await sql`
    UPDATE jobs SET state = 'queued', run_at = now(), attempts = 0, finished_at = NULL, failure_kind = NULL
    WHERE id = ${jobId} AND state = 'failed' RETURNING id`.execute(db);
  return result.rows.length === 1;
}

export interface QueueCount {
  kind: string;
  state: 'queued' | 'running' | 'failed';
  /** Queued jobs: how many are due now (the rest wait for their backoff). */
  due: number;
  count: number;
}

/** Unfinished and failed jobs by kind and state: one index scan (jobs_unfinished_kind_idx), for /metrics. */
export async function countJobs(db: Executor): Promise<QueueCount[]> {
  const result = await sql<{ kind: string; state: QueueCount['state']; due: string | number; count: string | number }>`
    SELECT kind, state, count(*) FILTER (WHERE run_at <= now()) AS due, count(*) AS count
    FROM jobs WHERE state <> 'done' GROUP BY kind, state`.execute(db);
  return result.rows.map((r) => ({ kind: r.kind, state: r.state, due: Number(r.due), count: Number(r.count) }));
}

/** Job ids as one parameter (the statement's text stays the same, so it is prepared once). */
const idArray = (jobIds: readonly number[]) => sql`${arrayLiteral(jobIds.map((id) => String(Math.trunc(Number(id)))))}::bigint[]`;

/**
 * Removes the jobs of `ids` that this worker still holds, finished, in one statement: for kinds whose own
 * table records the outcome (a webhook delivery's row, with its attempts), so a finished job is not
 * written once more as `done` and then deleted by the cleanup. @returns the ids removed.
 */
export async function removeFinishedJobs(db: Executor, jobIds: readonly number[], workerId: string): Promise<number[]> {
  if (jobIds.length === 0) return [];
  const result = await sql<{ id: number }>`
    DELETE FROM jobs WHERE id = ANY(${idArray(jobIds)}) AND locked_by = ${workerId} AND state = 'running'
    RETURNING id`.execute(db);
  return result.rows.map((r) => Number(r.id));
}

/** Extends the leases of the jobs of `ids` this worker still holds, in one statement. @returns the ids still held. */
export async function renewLeases(db: Executor, jobIds: readonly number[], workerId: string, leaseMs: number): Promise<number[]> {
  if (jobIds.length === 0) return [];
  const result = await sql<{ id: number }>`
    UPDATE jobs SET locked_until = now() + ${ms(leaseMs)}
    WHERE id = ANY(${idArray(jobIds)}) AND locked_by = ${workerId} AND state = 'running'
    RETURNING id`.execute(db);
  return result.rows.map((r) => Number(r.id));
}

/**
 * `claimJobs` in two index walks, for a queue with a large backlog (webhook deliveries): queued jobs due
 * now in (run_at, id) order through jobs_queued_idx, stopping after `limit` rows it could lock, then, if
 * room is left, running jobs whose lease ran out through jobs_running_lease_idx. `claimJobs`' single
 * statement with an OR of both reads every due job and sorts them on each claim: with 10,000 deliveries
 * waiting that was most of the database's work per delivery.
 */
export async function claimJobsByIndex(db: Executor, workerId: string, kind: string, limit: number, leaseMs: number, session: string | null = null, includeExpired = true): Promise<JobRow[]> {
  const claim = async (due: ReturnType<typeof sql>, order: ReturnType<typeof sql>, n: number) =>
    (
      await sql<JobRow>`
        UPDATE jobs SET state = 'running', attempts = attempts + 1, locked_by = ${workerId}, locked_until = now() + ${ms(leaseMs)}, locked_session = ${session}::text
        WHERE id IN (SELECT id FROM jobs WHERE ${due} AND kind = ${kind} ORDER BY ${order} LIMIT ${n} FOR UPDATE SKIP LOCKED)
        RETURNING id, kind, payload, attempts, max_attempts, last_error`.execute(db)
    ).rows;
  const queued = await claim(sql`state = 'queued' AND run_at <= now()`, sql`run_at, id`, limit);
  if (queued.length >= limit || !includeExpired) return queued;
  const expired = await claim(sql`state = 'running' AND locked_until < now()`, sql`locked_until`, limit - queued.length);
  return [...queued, ...expired];
}

/**
 * Ends now the leases of running jobs whose claiming process has gone: their `locked_session` is no longer
 * listed by pg_stat_activity (PostgreSQL drops a session as soon as its socket closes, which the kernel does
 * when a process is killed), so any worker claims them at its next claim instead of a lease later. Runs only
 * while `ownSession` itself is listed: where sessions are not visible under their own name (a pooler that
 * renames them, a role that cannot see them), nothing is ended and leases decide as before.
 * PostgreSQL only. @returns the ids whose lease was ended.
 */
export async function expireLeasesOfEndedSessions(db: Executor, ownSession: string): Promise<number[]> {
  const result = await sql<{ id: number }>`
    UPDATE jobs SET locked_until = now()
    WHERE state = 'running' AND locked_until > now() AND locked_session IS NOT NULL
      AND locked_session NOT IN (SELECT application_name FROM pg_stat_activity WHERE application_name LIKE ${`${LIVE_SESSION_PREFIX}%`})
      AND EXISTS (SELECT 1 FROM pg_stat_activity WHERE application_name = ${ownSession})
    RETURNING id`.execute(db);
  return result.rows.map((r) => Number(r.id));
}
