/**
 * The worker with every job certdesk has, as `serve` and `certdesk worker` run it. Also queues the periodic
 * `cleanup` job (one singleton key: a fleet of workers queues it once).
 */
import { analysisChecks } from '../domain/analysis/checks.js';
import type { DetectionService } from '../domain/analysis/detection/detection-protocol.js';
import { analyzeOrderJob, type AnalysisDeps } from '../domain/analysis/pipeline.js';
import { ANALYZE_ORDER_JOB, CLEANUP_JOB, DELIVER_WEBHOOK_JOB, MAKE_CONTENT_CREDENTIALS_JOB } from '../domain/background/job-kinds.js';
import { makeContentCredentialsJob, type ContentCredentialsJobDeps } from '../domain/content-credentials/make-content-credentials.job.js';
import { webhookJobHandlers, type DeliveryDeps, type WebhookJobHandlers } from '../domain/webhooks/delivery.js';
import { BatchWorker } from './batch-worker.js';
import { cleanupJob } from '../domain/intake/cleanup.js';
import type { Clock } from '../domain/time/clock.js';
import type { Db } from '../storage/database.js';
import type { ObjectStorage } from '../storage/object-storage/index.js';
import { enqueueJob } from './job-queue.js';
import { expireLeasesOfEndedSessions } from './job.repository.js';
import { isDatabaseUnavailable } from '../storage/database-availability.js';
import { Worker, type JobHandler, type JobObserver, type WorkerOptions } from './worker.js';
import { fullJitterBackoff, type RetrySchedule } from './retry-schedule.js';

export interface JobRuntimeDeps {
  db: Db;
  clock: Clock;
  storage: ObjectStorage;
  concurrency: number;
  onError?: (err: unknown) => void;
  /** Checks of the analysis pipeline (default: every check that exists). */
  checks?: AnalysisDeps['checks'];
  /** Image decoding of the analysis (the process's DecoderPool; absent: in the job's own thread). */
  decoder?: AnalysisDeps['decoder'];
  /** The external AI detection service (null or absent: `ai_detection` is not run). */
  detection?: DetectionService | null;
  /** The backoff of transient failures (configuration: JOB_RETRY_BASE_MS, JOB_RETRY_CAP_MS). */
  retry?: RetrySchedule;
  /** Sees every attempt (queue metrics). */
  observer?: JobObserver;
  /** Webhook deliveries (absent: the `deliver_webhook` jobs are left to a process that has them). */
  webhooks?: Omit<DeliveryDeps, 'db'>;
  /** Credentialed files of certificates (absent: the `make_content_credentials` jobs wait for a process that has them). */
  contentCredentials?: Omit<ContentCredentialsJobDeps, 'db' | 'storage' | 'clock'>;
  worker?: Partial<Pick<WorkerOptions, 'leaseMs' | 'pollMs' | 'backoffMs' | 'workerId' | 'retry'>>;
  /**
   * This process's live session on PostgreSQL (storage/notifications.ts `liveSession`): claims carry it, and
   * every SESSION_SWEEP_MS the runtime ends the leases of jobs whose claiming process's session has ended
   * (a killed instance), so they run again at once. Absent (PGlite): leases only.
   */
  session?: () => string | null;
}

/** How often an instance looks for jobs held by a process whose database session has ended. */
export const SESSION_SWEEP_MS = 1000;

const CLEANUP_EVERY_MS = 10 * 60_000;

export function jobHandlers(deps: JobRuntimeDeps, webhooks: WebhookJobHandlers | null = deps.webhooks ? webhookJobHandlers({ db: deps.db, ...deps.webhooks }) : null): Record<string, JobHandler> {
  return {
    [ANALYZE_ORDER_JOB]: analyzeOrderJob({ db: deps.db, clock: deps.clock, storage: deps.storage, decoder: deps.decoder, checks: deps.checks ?? analysisChecks({ db: deps.db, detection: deps.detection ?? null }) }),
    [CLEANUP_JOB]: cleanupJob(deps),
    ...(webhooks ? { [DELIVER_WEBHOOK_JOB]: webhooks.single } : {}),
    ...(deps.contentCredentials
      ? { [MAKE_CONTENT_CREDENTIALS_JOB]: makeContentCredentialsJob({ db: deps.db, storage: deps.storage, clock: deps.clock, ...deps.contentCredentials }) }
      : {}),
  };
}

/**
 * Webhook deliveries are many and short (a request each): a BatchWorker of their own claims them in
 * batches and records them in batches, up to this many at once per process (the per-endpoint bound of
 * delivery.ts still holds), polling this often when idle (a delivery queued by this process wakes it).
 */
export const WEBHOOK_DELIVERY_CONCURRENCY = 64;
export const WEBHOOK_DELIVERY_POLL_MS = 100;
/**
 * The lease of a claimed delivery (at most; JOB_LEASE_SECONDS when shorter), renewed every third of it
 * while the delivery runs. Shorter than the analysis jobs' minute: a delivery is a request of at most 15 s
 * whose heartbeat does not wait for the request, and the deliveries a crashed process held are sent by
 * another this long after its last heartbeat (a lapse under a stalled database sends one again: deliveries
 * are at least once, with the same `webhook-id`).
 */
export const WEBHOOK_DELIVERY_LEASE_MS = 10_000;

export class JobRuntime {
  readonly worker: Worker;
  /** The deliveries' loop (absent without webhooks); the Worker's loop leaves their kind to it. */
  readonly deliveries: BatchWorker | null;
  private timer: NodeJS.Timeout | null = null;
  private sweeper: NodeJS.Timeout | null = null;
  private sweeping = false;

  constructor(private readonly deps: JobRuntimeDeps) {
    const webhooks = deps.webhooks ? webhookJobHandlers({ db: deps.db, ...deps.webhooks }) : null;
    this.deliveries = webhooks
      ? new BatchWorker({
          db: deps.db,
          kind: DELIVER_WEBHOOK_JOB,
          handler: webhooks.batch,
          concurrency: WEBHOOK_DELIVERY_CONCURRENCY,
          pollMs: Math.min(WEBHOOK_DELIVERY_POLL_MS, deps.worker?.pollMs ?? WEBHOOK_DELIVERY_POLL_MS),
          leaseMs: Math.min(WEBHOOK_DELIVERY_LEASE_MS, deps.worker?.leaseMs ?? WEBHOOK_DELIVERY_LEASE_MS),
          backoffMs: deps.worker?.backoffMs ?? (deps.retry ? fullJitterBackoff(deps.retry) : undefined),
          onError: deps.onError,
          observer: deps.observer,
          workerId: deps.worker?.workerId ? `${deps.worker.workerId}-deliveries` : undefined,
          session: deps.session,
        })
      : null;
    this.worker = new Worker({
      db: deps.db,
      handlers: jobHandlers(deps, webhooks),
      loopExcludes: webhooks ? [DELIVER_WEBHOOK_JOB] : [],
      concurrency: deps.concurrency,
      onError: deps.onError,
      retry: deps.retry,
      observer: deps.observer,
      session: deps.session,
      ...deps.worker,
    });
  }

  private scheduleCleanup(): void {
    enqueueJob(this.deps.db, CLEANUP_JOB, {}, { singletonKey: CLEANUP_JOB }).catch((err: unknown) => this.deps.onError?.(err));
  }

  start(): void {
    this.worker.start();
    this.deliveries?.start();
    this.scheduleCleanup();
    this.timer = setInterval(() => this.scheduleCleanup(), CLEANUP_EVERY_MS);
    this.timer.unref();
    if (this.deps.session) {
      this.sweeper = setInterval(() => void this.sweepEndedSessions(), SESSION_SWEEP_MS);
      this.sweeper.unref();
    }
  }

  /** Ends the leases of jobs whose process's session has ended, and claims them if any were. */
  async sweepEndedSessions(): Promise<number> {
    const own = this.deps.session?.();
    if (!own || this.sweeping) return 0;
    this.sweeping = true;
    try {
      const ended = await expireLeasesOfEndedSessions(this.deps.db, own);
      if (ended.length > 0) this.nudge();
      return ended.length;
    } catch (err) {
      if (!isDatabaseUnavailable(err)) this.deps.onError?.(err);
      return 0;
    } finally {
      this.sweeping = false;
    }
  }

  nudge(): void {
    this.worker.nudge();
    this.deliveries?.nudge();
  }

  async stop(graceMs?: number): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    if (this.sweeper) clearInterval(this.sweeper);
    await Promise.all([this.worker.stop(graceMs), this.deliveries?.stop(graceMs)]);
  }
}
