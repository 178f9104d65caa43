/**
 * The durable job queue's write side: enqueue a job, alone or inside the caller's transaction (so a job is
 * queued exactly when the change that needs it commits: no order without its analysis job).
 */
import type { Executor } from '../storage/database.js';
import type { Clock } from '../domain/time/clock.js';
import { insertJob } from './job.repository.js';

export interface EnqueueOptions {
  /** Earliest start; default now. */
  runAt?: Date;
  /** Attempts before the job fails for good; default 5. */
  maxAttempts?: number;
  /** At most one unfinished job per key. */
  singletonKey?: string;
}

export const DEFAULT_MAX_ATTEMPTS = 5;

/**
 * @returns the job id, or null when an unfinished job with the same singleton key already exists.
 * @example
 * await db.transaction().execute(async (trx) => { await createOrder(trx, clock, row, asset, actor); await enqueueJob(trx, clock, 'analyze_order', { order_id }); });
 */
export async function enqueueJob(db: Executor, clock: Clock, kind: string, payload: Record<string, unknown>, options: EnqueueOptions = {}): Promise<number | null> {
  const now = clock.now();
  return insertJob(
    db,
    { kind, payload, runAt: options.runAt ?? now, maxAttempts: options.maxAttempts ?? DEFAULT_MAX_ATTEMPTS, singletonKey: options.singletonKey ?? null },
    now,
  );
}
