/**
 * The durable job queue's write side: enqueue a job, alone or inside the caller's transaction (so a job is
 * queued exactly when the change that needs it commits). The INSERT itself is domain/background's, shared
 * with the order creation statement.
 */
import { maxAttemptsOf } from '../domain/background/job-kinds.js';
import { insertJob } from '../domain/background/jobs.repository.js';
import type { Executor } from '../storage/database.js';

export interface EnqueueOptions {
  /** Earliest start, from the database's now; default 0. */
  delayMs?: number;
  /** Attempts before the job fails for good; default: the kind's (domain/background/job-kinds.ts). */
  maxAttempts?: number;
  /** At most one unfinished job per key. */
  singletonKey?: string;
}

/**
 * @returns the job id, or null when an unfinished job with the same singleton key already exists.
 * @example
 * await db.transaction().execute(async (trx) => { ...; await enqueueJob(trx, 'analyze_order', { order_id }); });
 */
export async function enqueueJob(db: Executor, kind: string, payload: Record<string, unknown>, options: EnqueueOptions = {}): Promise<number | null> {
  return insertJob(db, { kind, payload, delayMs: options.delayMs ?? 0, maxAttempts: options.maxAttempts ?? maxAttemptsOf(kind), singletonKey: options.singletonKey ?? null });
}
