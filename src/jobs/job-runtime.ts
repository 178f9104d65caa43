/**
 * The worker with every job certdesk has, as `serve` and `certdesk worker` run it. Also queues the periodic
 * `cleanup` job (one singleton key: a fleet of workers queues it once).
 */
import { analysisChecks } from '../domain/analysis/checks.js';
import type { DetectionService } from '../domain/analysis/detection/detection-protocol.js';
import { analyzeOrderJob, type AnalysisDeps } from '../domain/analysis/pipeline.js';
import { ANALYZE_ORDER_JOB, CLEANUP_JOB, DELIVER_WEBHOOK_JOB } from '../domain/background/job-kinds.js';
import { deliverWebhookJob, type DeliveryDeps } from '../domain/webhooks/delivery.js';
import { cleanupJob } from '../domain/intake/cleanup.js';
import type { Clock } from '../domain/time/clock.js';
import type { Db } from '../storage/database.js';
import type { ObjectStorage } from '../storage/object-storage/index.js';
import { enqueueJob } from './job-queue.js';
import { Worker, type JobHandler, type JobObserver, type WorkerOptions } from './worker.js';
import type { RetrySchedule } from './retry-schedule.js';

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
  worker?: Partial<Pick<WorkerOptions, 'leaseMs' | 'pollMs' | 'backoffMs' | 'workerId' | 'retry'>>;
}

const CLEANUP_EVERY_MS = 10 * 60_000;

export function jobHandlers(deps: JobRuntimeDeps): Record<string, JobHandler> {
  return {
    [ANALYZE_ORDER_JOB]: analyzeOrderJob({ db: deps.db, clock: deps.clock, storage: deps.storage, decoder: deps.decoder, checks: deps.checks ?? analysisChecks({ db: deps.db, detection: deps.detection ?? null }) }),
    [CLEANUP_JOB]: cleanupJob(deps),
    ...(deps.webhooks ? { [DELIVER_WEBHOOK_JOB]: deliverWebhookJob({ db: deps.db, ...deps.webhooks }) } : {}),
  };
}

export class JobRuntime {
  readonly worker: Worker;
  private timer: NodeJS.Timeout | null = null;

  constructor(private readonly deps: JobRuntimeDeps) {
    this.worker = new Worker({
      db: deps.db,
      handlers: jobHandlers(deps),
      concurrency: deps.concurrency,
      onError: deps.onError,
      retry: deps.retry,
      observer: deps.observer,
      ...deps.worker,
    });
  }

  private scheduleCleanup(): void {
    enqueueJob(this.deps.db, CLEANUP_JOB, {}, { singletonKey: CLEANUP_JOB }).catch((err: unknown) => this.deps.onError?.(err));
  }

  start(): void {
    this.worker.start();
    this.scheduleCleanup();
    this.timer = setInterval(() => this.scheduleCleanup(), CLEANUP_EVERY_MS);
    this.timer.unref();
  }

  nudge(): void {
    this.worker.nudge();
  }

  async stop(graceMs?: number): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.worker.stop(graceMs);
  }
}
