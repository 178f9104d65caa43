/**
 * Runs the jobs of ONE kind many at a time, for kinds that are many and short (webhook deliveries): it
 * claims up to `batchSize` due jobs in one statement (FOR UPDATE SKIP LOCKED, like the Worker), lets the
 * kind's BatchJobHandler read what they need in one go, runs each job as soon as it is read, and removes
 * finished jobs in batches (one DELETE for every job that finished while the previous one ran: the kind's
 * own table records the outcome), so a delivery costs a fraction of the Worker's three statements per job.
 * Leases are renewed in one statement for every held job. A job whose work throws is put back with the queue's backoff, or failed for good
 * when it has no attempts left, as the Worker does (the kind has no final-failure hook).
 *
 * Idle, it polls every `pollMs`; `nudge()` (this process queued such a job) wakes it at once.
 */
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import type { BatchJobHandler } from '../domain/background/job-handler.js';
import type { Db } from '../storage/database.js';
import { isDatabaseUnavailable } from '../storage/database-availability.js';
import { claimJobsByIndex, removeFinishedJobs, failJob, renewLeases, retryJob, type JobRow } from './job.repository.js';
import { jobErrorMessage } from './job-error-message.js';
import { DEFAULT_RETRY_SCHEDULE, fullJitterBackoff } from './retry-schedule.js';
import { DEFAULT_LEASE_MS, type JobObserver } from './worker.js';

export interface BatchWorkerOptions {
  db: Db;
  kind: string;
  handler: BatchJobHandler;
  /** Jobs held at once (claimed and not yet recorded). */
  concurrency: number;
  /** Most jobs one claim takes (default: a quarter of `concurrency`, at least 1). */
  batchSize?: number;
  leaseMs?: number;
  pollMs?: number;
  backoffMs?: (attempt: number) => number;
  onError?: (err: unknown) => void;
  observer?: JobObserver;
  workerId?: string;
  /** As WorkerOptions.session. */
  session?: () => string | null;
}

/** How often the claims also look for jobs whose lease ran out (a dead worker's, or ended by the session sweep). */
export const EXPIRED_PASS_MS = 500;

export class BatchWorker {
  readonly id: string;
  private readonly leaseMs: number;
  private readonly pollMs: number;
  private readonly batchSize: number;
  private readonly backoffMs: (attempt: number) => number;
  /** Claimed jobs not yet recorded, by id. */
  private readonly held = new Map<number, JobRow>();
  private readonly running = new Set<Promise<void>>();
  /** Finished jobs waiting for the next batched completion, with when each started. */
  private finished: Array<{ job: JobRow; started: number }> = [];
  private flushing: Promise<void> | null = null;
  private stopped = true;
  private wake: (() => void) | null = null;
  private loop: Promise<void> | null = null;
  private beat: NodeJS.Timeout | null = null;
  private readonly abort = new AbortController();
  /** When the last claim also looked for jobs whose lease ran out (performance.now()). */
  private expiredPassAt = Number.NEGATIVE_INFINITY;

  constructor(private readonly options: BatchWorkerOptions) {
    this.id = options.workerId ?? `batch-worker-${randomUUID()}`;
    this.leaseMs = options.leaseMs ?? DEFAULT_LEASE_MS;
    this.pollMs = options.pollMs ?? 1000;
    this.batchSize = Math.max(1, options.batchSize ?? Math.ceil(options.concurrency / 4));
    this.backoffMs = options.backoffMs ?? fullJitterBackoff(DEFAULT_RETRY_SCHEDULE);
  }

  /** Claims one batch and starts its jobs. @returns how many were claimed. */
  private async claimBatch(expiredToo = false): Promise<number> {
    const free = this.options.concurrency - this.held.size;
    if (free <= 0) return 0;
    // Jobs whose lease ran out are looked for at most every EXPIRED_PASS_MS, not at every claim: a claim
    // that finds fewer due jobs than it could take would otherwise always cost a second statement.
    const now = performance.now();
    const includeExpired = expiredToo || now - this.expiredPassAt >= EXPIRED_PASS_MS;
    if (includeExpired) this.expiredPassAt = now;
    const jobs = await claimJobsByIndex(this.options.db, this.id, this.options.kind, Math.min(free, this.batchSize), this.leaseMs, this.options.session?.() ?? null, includeExpired);
    if (jobs.length === 0) return 0;
    for (const job of jobs) this.held.set(Number(job.id), job);
    const started = performance.now();
    const run = this.runBatch(jobs, started);
    this.running.add(run);
    void run.finally(() => this.running.delete(run));
    return jobs.length;
  }

  private async runBatch(jobs: JobRow[], started: number): Promise<void> {
    let work: Array<() => Promise<void>>;
    try {
      work = await this.options.handler.prepare(jobs, this.abort.signal);
    } catch (err) {
      await Promise.all(jobs.map((job) => this.failed(job, err, started)));
      return;
    }
    await Promise.all(
      jobs.map(async (job, i) => {
        try {
          await work[i]!();
          this.finished.push({ job, started });
          this.flush();
        } catch (err) {
          await this.failed(job, err, started);
        }
      }),
    );
  }

  /** A job whose work threw: back in the queue with backoff, or failed for good when no attempts are left. */
  private async failed(job: JobRow, err: unknown, started: number): Promise<void> {
    const { db } = this.options;
    const message = jobErrorMessage(err);
    let outcome: 'retried' | 'failed' | 'lost';
    try {
      if (job.attempts < job.max_attempts) outcome = (await retryJob(db, job.id, this.id, this.backoffMs(job.attempts), message)) ? 'retried' : 'lost';
      else outcome = (await failJob(db, job.id, this.id, message, 'transient')) ? 'failed' : 'lost';
    } catch (e) {
      this.options.onError?.(e);
      outcome = 'lost';
    }
    this.held.delete(Number(job.id));
    this.options.observer?.attemptFinished(job.kind, outcome, (performance.now() - started) / 1000);
    this.wake?.();
  }

  /** Removes every finished job in one statement; one flush at a time, the next takes what came meanwhile. */
  private flush(): Promise<void> {
    if (this.flushing) return this.flushing;
    if (this.finished.length === 0) return Promise.resolve();
    this.flushing = (async () => {
      while (this.finished.length > 0) {
        const batch = this.finished;
        this.finished = [];
        let done = new Set<number>();
        try {
          done = new Set(await removeFinishedJobs(this.options.db, batch.map((f) => f.job.id), this.id));
        } catch (err) {
          // Not recorded: the jobs keep their claim until the lease runs out and run again; their work is
          // idempotent (a delivery already recorded is not sent again).
          this.options.onError?.(err);
        }
        const at = performance.now();
        for (const { job, started } of batch) {
          this.held.delete(Number(job.id));
          this.options.observer?.attemptFinished(job.kind, done.has(Number(job.id)) ? 'done' : 'lost', (at - started) / 1000);
        }
        this.wake?.();
      }
    })().finally(() => {
      this.flushing = null;
    });
    return this.flushing;
  }

  /** Claims and runs what is due now (up to the free capacity) and waits for it to be recorded. Tests drive the queue with this. */
  async runDue(): Promise<number> {
    const claimed = await this.claimBatch(true);
    await Promise.all([...this.running]);
    await this.flush();
    return claimed;
  }

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.beat = setInterval(() => {
      renewLeases(this.options.db, [...this.held.keys()], this.id, this.leaseMs).catch((err: unknown) => this.options.onError?.(err));
    }, Math.max(50, Math.floor(this.leaseMs / 3)));
    this.beat.unref();
    this.loop = (async () => {
      let databaseDown = false;
      while (!this.stopped) {
        let claimed = 0;
        try {
          claimed = await this.claimBatch();
          databaseDown = false;
        } catch (err) {
          const unavailable = isDatabaseUnavailable(err);
          if (!unavailable || !databaseDown) this.options.onError?.(err);
          databaseDown = unavailable;
        }
        if (this.stopped) break;
        // Claim again at once while jobs come and there is room; else wait for room, a nudge or the poll.
        if (claimed === 0 || this.held.size >= this.options.concurrency) {
          await new Promise<void>((resolve) => {
            const timer = setTimeout(resolve, claimed === 0 ? this.pollMs : 1000);
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

  nudge(): void {
    this.wake?.();
  }

  /** Stops claiming, waits for held jobs (up to `graceMs`) and records them; the rest is left to its lease. */
  async stop(graceMs = 10_000): Promise<void> {
    this.stopped = true;
    this.wake?.();
    await this.loop;
    let timer: NodeJS.Timeout | undefined;
    const timedOut = await Promise.race([
      Promise.all([...this.running]).then(() => false),
      new Promise<boolean>((r) => (timer = setTimeout(() => r(true), graceMs))),
    ]);
    clearTimeout(timer);
    if (timedOut) this.abort.abort(new Error('worker stopping'));
    await this.flush().catch(() => undefined);
    if (this.beat) clearInterval(this.beat);
  }
}
