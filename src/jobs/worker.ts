/**
 * Runs queued jobs: claims due jobs (and jobs whose worker died: their lease ran out), runs each with its
 * handler while a heartbeat renews the lease, then completes it, or retries it with exponential backoff, or,
 * with no attempts left, fails it for good and calls the handler's final-failure hook.
 *
 * Runs inside `serve` and in `certdesk worker`; any number of workers on any number of machines share one
 * database safely (claims use FOR UPDATE SKIP LOCKED).
 */
import { randomUUID } from 'node:crypto';
import type { Db } from '../storage/database.js';
import type { Clock } from '../domain/time/clock.js';
import { isDatabaseUnavailable } from '../storage/database-availability.js';
import { claimJobs, completeJob, failJob, renewLease, retryJob, type JobRow } from './job.repository.js';

export interface JobContext {
  job: JobRow;
  /** Aborted when the worker stops or loses the job's lease: long handlers should stop early. */
  signal: AbortSignal;
}

export interface JobHandler {
  run(payload: Record<string, unknown>, context: JobContext): Promise<void>;
  /** Called once when the job has failed for good (no attempts left), with the last error's message. */
  onFinalFailure?(payload: Record<string, unknown>, error: string, context: JobContext): Promise<void>;
}

export interface WorkerOptions {
  db: Db;
  clock: Clock;
  handlers: Readonly<Record<string, JobHandler>>;
  /** Jobs run at once. */
  concurrency: number;
  /** How long a claim holds a job without a heartbeat. */
  leaseMs?: number;
  /** Pause between polls when the queue is empty. */
  pollMs?: number;
  /** Backoff of the n-th failed attempt (1-based); default 2^n seconds, at most one hour. */
  backoffMs?: (attempt: number) => number;
  /**
   * Where errors of the loop itself go. While the database is unreachable only the first failed poll is
   * reported (the loop keeps polling and resumes by itself), so an outage is one line, not one per second.
   */
  onError?: (err: unknown) => void;
  workerId?: string;
}

export const DEFAULT_LEASE_MS = 60_000;

export function exponentialBackoffMs(attempt: number): number {
  return Math.min(3_600_000, 1000 * 2 ** attempt);
}

function messageOf(err: unknown): string {
  const text = err instanceof Error ? `${err.name}: ${err.message}` : String(err);
  return text.slice(0, 2000);
}

export class Worker {
  readonly id: string;
  private readonly leaseMs: number;
  private readonly pollMs: number;
  private readonly backoffMs: (attempt: number) => number;
  private running = new Set<Promise<void>>();
  private stopped = true;
  private wake: (() => void) | null = null;
  private loop: Promise<void> | null = null;
  private readonly abort = new AbortController();

  constructor(private readonly options: WorkerOptions) {
    this.id = options.workerId ?? `worker-${randomUUID()}`;
    this.leaseMs = options.leaseMs ?? DEFAULT_LEASE_MS;
    this.pollMs = options.pollMs ?? 1000;
    this.backoffMs = options.backoffMs ?? exponentialBackoffMs;
  }

  private get kinds(): string[] {
    return Object.keys(this.options.handlers);
  }

  /**
   * Claims and runs what is due now, up to the free capacity, and waits for those jobs to finish.
   * @returns how many jobs were run. (Tests drive the queue with this and a manual clock.)
   */
  async runDue(): Promise<number> {
    const free = this.options.concurrency - this.running.size;
    if (free <= 0) return 0;
    const jobs = await claimJobs(this.options.db, this.id, this.kinds, free, this.options.clock.now(), this.leaseMs);
    await Promise.all(jobs.map((job) => this.track(this.execute(job))));
    return jobs.length;
  }

  private track(p: Promise<void>): Promise<void> {
    this.running.add(p);
    return p.finally(() => this.running.delete(p));
  }

  private async execute(job: JobRow): Promise<void> {
    const { db, clock } = this.options;
    const handler = this.options.handlers[job.kind]!;
    const lost = new AbortController();
    const signal = AbortSignal.any([lost.signal, this.abort.signal]);
    const context: JobContext = { job, signal };
    // Heartbeat: renew the lease at a third of its length; a lost lease aborts the handler.
    const beat = setInterval(() => {
      renewLease(db, job.id, this.id, clock.now(), this.leaseMs).then(
        (held) => held || lost.abort(new Error('lease lost')),
        (err: unknown) => this.options.onError?.(err),
      );
    }, Math.max(50, Math.floor(this.leaseMs / 3)));
    beat.unref();
    try {
      if (job.attempts > job.max_attempts) throw new Error('attempts exhausted (the worker running it stopped)');
      await handler.run(job.payload, context);
      clearInterval(beat);
      await completeJob(db, job.id, this.id, clock.now());
    } catch (err) {
      clearInterval(beat);
      const message = messageOf(err);
      if (job.attempts < job.max_attempts) {
        await retryJob(db, job.id, this.id, new Date(clock.now().getTime() + this.backoffMs(job.attempts)), message).catch((e: unknown) => this.options.onError?.(e));
        return;
      }
      try {
        await handler.onFinalFailure?.(job.payload, message, context);
      } catch (hookErr) {
        this.options.onError?.(hookErr);
      }
      await failJob(db, job.id, this.id, clock.now(), message).catch((e: unknown) => this.options.onError?.(e));
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
        try {
          const free = this.options.concurrency - this.running.size;
          if (free > 0) {
            const jobs = await claimJobs(this.options.db, this.id, this.kinds, free, this.options.clock.now(), this.leaseMs);
            claimed = jobs.length;
            for (const job of jobs) {
              void this.track(this.execute(job)).then(() => this.wake?.());
            }
          }
          databaseDown = false;
        } catch (err) {
          const unavailable = isDatabaseUnavailable(err);
          if (!unavailable || !databaseDown) this.options.onError?.(err);
          databaseDown = unavailable;
        }
        if (this.stopped) break;
        if (claimed === 0 || this.running.size >= this.options.concurrency) {
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

  /** Asks the loop to look at the queue now (a job was just enqueued by this process). */
  nudge(): void {
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
