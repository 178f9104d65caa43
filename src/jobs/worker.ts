/**
 * Runs queued jobs: claims due jobs (and jobs whose worker died: their lease ran out), runs each with its
 * handler while a heartbeat renews the lease, then completes it; or, after a transient error, puts it back
 * with exponential backoff and full jitter (retry-schedule.ts); or, after a `PermanentJobError` or with no
 * attempts left, fails it for good in one transaction with the handler's final-failure hook.
 *
 * Every time (due, lease) is the database's clock. Runs inside `serve` and in `certdesk worker`; any number
 * of workers on any number of machines share one database safely (claims use FOR UPDATE SKIP LOCKED).
 */
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { isPermanentJobError, type JobContext, type JobFailureKind, type JobHandler } from '../domain/background/job-handler.js';
import type { Db } from '../storage/database.js';
import { isDatabaseUnavailable } from '../storage/database-availability.js';
import { claimJobs, completeJob, failJob, noteJobError, renewLease, retryJob, type JobRow } from './job.repository.js';
import { jobErrorMessage } from './job-error-message.js';
import { DEFAULT_RETRY_SCHEDULE, fullJitterBackoff, type RetrySchedule } from './retry-schedule.js';

export type { JobContext, JobHandler };

/**
 * How one attempt ended: `done`; `retried` (transient error, attempts left); `failed` (for good, the hook's
 * writes committed); `hook_failed` (the final-failure transaction rolled back: the job waits for its lease);
 * `lost` (another worker took the job over meanwhile: nothing of this attempt was recorded).
 */
export type AttemptOutcome = 'done' | 'retried' | 'failed' | 'hook_failed' | 'lost';

/** Sees every attempt (the queue metrics of /metrics). */
export interface JobObserver {
  attemptFinished(kind: string, outcome: AttemptOutcome, seconds: number): void;
}

export interface WorkerOptions {
  db: Db;
  handlers: Readonly<Record<string, JobHandler>>;
  /** Jobs run at once. */
  concurrency: number;
  /** How long a claim holds a job without a heartbeat. */
  leaseMs?: number;
  /** Pause between polls when the queue is empty. */
  pollMs?: number;
  /** The backoff schedule of transient failures; default DEFAULT_RETRY_SCHEDULE with full jitter. */
  retry?: RetrySchedule;
  /** Overrides `retry`: the wait after the n-th failed attempt (1-based). Tests pass a fixed one. */
  backoffMs?: (attempt: number) => number;
  /**
   * Where errors of the loop itself go. While the database is unreachable only the first failed poll is
   * reported (the loop keeps polling and resumes by itself), so an outage is one line, not one per second.
   */
  onError?: (err: unknown) => void;
  observer?: JobObserver;
  workerId?: string;
  /**
   * This process's live database session (storage/notifications.ts `liveSession`), written with each claim
   * so that other instances take the job over as soon as the session ends; null or absent: leases only.
   */
  session?: () => string | null;
  /** Kinds the polling loop leaves to another loop (the BatchWorker of deliveries); `runDue()` still runs them. */
  loopExcludes?: readonly string[];
}

export const DEFAULT_LEASE_MS = 60_000;


export class Worker {
  readonly id: string;
  private readonly leaseMs: number;
  private readonly pollMs: number;
  private readonly backoffMs: (attempt: number) => number;
  private running = new Set<Promise<void>>();
  private stopped = true;
  private wake: (() => void) | null = null;
  /** A wake-up that came while the loop was not waiting (mid-claim): the loop then looks again at once. */
  private nudged = false;
  private loop: Promise<void> | null = null;
  private readonly abort = new AbortController();

  constructor(private readonly options: WorkerOptions) {
    this.id = options.workerId ?? `worker-${randomUUID()}`;
    this.leaseMs = options.leaseMs ?? DEFAULT_LEASE_MS;
    this.pollMs = options.pollMs ?? 1000;
    this.backoffMs = options.backoffMs ?? fullJitterBackoff(options.retry ?? DEFAULT_RETRY_SCHEDULE);
  }

  private get kinds(): string[] {
    return Object.keys(this.options.handlers);
  }

  private get loopKinds(): string[] {
    const excluded = this.options.loopExcludes ?? [];
    return this.kinds.filter((kind) => !excluded.includes(kind));
  }

  /**
   * Claims and runs what is due now, up to the free capacity, and waits for those jobs to finish.
   * @returns how many jobs were run. (Tests drive the queue with this.)
   */
  async runDue(): Promise<number> {
    const free = this.options.concurrency - this.running.size;
    if (free <= 0) return 0;
    const jobs = await claimJobs(this.options.db, this.id, this.kinds, free, this.leaseMs, this.options.session?.() ?? null);
    await Promise.all(jobs.map((job) => this.track(this.execute(job))));
    return jobs.length;
  }

  private track(p: Promise<void>): Promise<void> {
    this.running.add(p);
    return p.finally(() => this.running.delete(p));
  }

  private async execute(job: JobRow): Promise<void> {
    const started = performance.now();
    const outcome = await this.attempt(job);
    this.options.observer?.attemptFinished(job.kind, outcome, (performance.now() - started) / 1000);
  }

  private async attempt(job: JobRow): Promise<AttemptOutcome> {
    const { db } = this.options;
    const handler = this.options.handlers[job.kind]!;
    const lost = new AbortController();
    const signal = AbortSignal.any([lost.signal, this.abort.signal]);
    const context: JobContext = { job, signal };
    // Heartbeat: renew the lease at a third of its length; a lost lease aborts the handler.
    const beat = setInterval(() => {
      renewLease(db, job.id, this.id, this.leaseMs).then(
        (held) => held || lost.abort(new Error('lease lost')),
        (err: unknown) => this.options.onError?.(err),
      );
    }, Math.max(50, Math.floor(this.leaseMs / 3)));
    beat.unref();
    try {
      if (job.attempts > job.max_attempts) {
        // Claimed once more than allowed: its worker died on the last attempt, or its final-failure
        // transaction rolled back. Fail it now (the hook runs again).
        throw new Error(`attempts exhausted (${job.last_error ?? 'the worker running it stopped'})`);
      }
      await handler.run(job.payload, context);
      clearInterval(beat);
      return (await completeJob(db, job.id, this.id)) ? 'done' : 'lost';
    } catch (err) {
      clearInterval(beat);
      const message = jobErrorMessage(err);
      const permanent = isPermanentJobError(err);
      if (!permanent && job.attempts < job.max_attempts) {
        const requeued = await retryJob(db, job.id, this.id, this.backoffMs(job.attempts), message).catch((e: unknown) => {
          this.options.onError?.(e);
          return false;
        });
        return requeued ? 'retried' : 'lost';
      }
      return this.failForGood(job, handler, context, message, permanent ? 'permanent' : 'transient');
    }
  }

  /**
   * Fails the job and runs the handler's final-failure hook in ONE transaction: the order's move to
   * `Failed` commits with the job's failure or not at all. When the hook throws, nothing commits: the job
   * stays claimed by this worker until its lease runs out, then another claim fails it again.
   */
  private async failForGood(job: JobRow, handler: JobHandler, context: JobContext, message: string, failureKind: JobFailureKind): Promise<AttemptOutcome> {
    const { db } = this.options;
    try {
      const failed = await db.transaction().execute(async (trx) => {
        if (!(await failJob(trx, job.id, this.id, message, failureKind))) return false;
        await handler.onFinalFailure?.(job.payload, message, { ...context, trx, failureKind });
        return true;
      });
      return failed ? 'failed' : 'lost';
    } catch (hookErr) {
      this.options.onError?.(hookErr);
      await noteJobError(db, job.id, this.id, message).catch((e: unknown) => this.options.onError?.(e));
      return 'hook_failed';
    }
  }

  /** Starts polling in the background. */
  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.loop = (async () => {
      let databaseDown = false;
      while (!this.stopped) {
        let claimed = 0;
        this.nudged = false;
        try {
          const free = this.options.concurrency - this.running.size;
          if (free > 0) {
            // One job per claim, the loop claiming again at once while slots are free: a burst of jobs
            // spreads over every instance woken with this one instead of filling its free slots at once.
            const jobs = await claimJobs(this.options.db, this.id, this.loopKinds, 1, this.leaseMs, this.options.session?.() ?? null);
            claimed = jobs.length;
            for (const job of jobs) {
              void this.track(this.execute(job)).then(() => this.nudge());
            }
          }
          databaseDown = false;
        } catch (err) {
          const unavailable = isDatabaseUnavailable(err);
          if (!unavailable || !databaseDown) this.options.onError?.(err);
          databaseDown = unavailable;
        }
        if (this.stopped) break;
        if ((claimed === 0 || this.running.size >= this.options.concurrency) && !this.nudged) {
          await new Promise<void>((resolve) => {
            const timer = setTimeout(resolve, this.pollMs);
            this.wake = () => {
              clearTimeout(timer);
              resolve();
            };
          });
          this.wake = null;
        }
      }
    })();
  }

  /** Asks the loop to look at the queue now (a job was queued: by this process, or by any, notified by the database). */
  nudge(): void {
    this.nudged = true;
    this.wake?.();
  }

  /**
   * Stops claiming and waits for the running jobs (up to `graceMs`); jobs still running then are abandoned
   * to their lease, and another worker runs them again.
   */
  async stop(graceMs = 10_000): Promise<void> {
    this.stopped = true;
    this.wake?.();
    await this.loop;
    const all = Promise.all([...this.running]);
    let timer: NodeJS.Timeout | undefined;
    const timedOut = await Promise.race([all.then(() => false), new Promise<boolean>((r) => (timer = setTimeout(() => r(true), graceMs)))]);
    clearTimeout(timer);
    if (timedOut) this.abort.abort(new Error('worker stopping'));
  }
}
