/**
 * The contract between the durable job queue (src/jobs/) and the features whose work runs as jobs
 * (analysis, cleanup, ...). It lives in domain/ so that features implement it without importing the queue:
 * the queue depends on this file, never the other way round.
 */
import type { Executor } from '../../storage/database.js';

/** What a running job knows about itself. */
export interface JobInfo {
  id: number;
  kind: string;
  payload: Record<string, unknown>;
  /** 1-based: this run is the n-th claim of the job. */
  attempts: number;
  max_attempts: number;
}

export interface JobContext {
  job: JobInfo;
  /** Aborted when the worker stops or loses the job's lease: long handlers should stop early. */
  signal: AbortSignal;
}

export interface JobHandler {
  run(payload: Record<string, unknown>, context: JobContext): Promise<void>;
  /**
   * Called once when the job has failed for good (a permanent error, or no attempts left), with the last
   * error's message. The executor is the transaction that marks the job failed: whatever the hook writes
   * commits together with that, or not at all (then the job stays claimed until its lease runs out and is
   * tried again).
   */
  onFinalFailure?(payload: Record<string, unknown>, error: string, context: FinalFailureContext): Promise<void>;
}

/**
 * 'permanent': a `PermanentJobError` (failed at its first occurrence); 'transient': every attempt was used
 * (an operator may try again once the cause is gone).
 */
export type JobFailureKind = 'permanent' | 'transient';

export interface FinalFailureContext extends JobContext {
  trx: Executor;
  failureKind: JobFailureKind;
}

/**
 * An error no retry can change (bad bytes: a corrupt, truncated or hostile file, a format the service refuses).
 * The queue fails the job at once instead of retrying it. Anything else thrown by a handler is transient
 * (network, storage, detection service, database) and retried with backoff.
 */
export class PermanentJobError extends Error {
  override name = 'PermanentJobError';
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}

export function isPermanentJobError(err: unknown): err is PermanentJobError {
  return err instanceof PermanentJobError;
}

/**
 * A kind whose jobs are claimed and prepared many at a time (src/jobs/batch-worker.ts): `prepare` reads
 * what every claimed job needs in one go and returns one function per job (same order) that does the
 * job's work; each finishes on its own, and the queue records finished jobs in batches. A function that
 * throws is retried like a `JobHandler` that throws. Webhook deliveries run this way (thousands a second).
 */
export interface BatchJobHandler {
  prepare(jobs: readonly JobInfo[], signal: AbortSignal): Promise<Array<() => Promise<void>>>;
}
