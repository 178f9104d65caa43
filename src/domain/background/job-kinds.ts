/**
 * The jobs certdesk has and how hard each is retried. A handler throws `PermanentJobError` for what no
 * retry can change (the job fails at once); anything else is transient and retried with backoff (see
 * src/jobs/retry-schedule.ts and docs/operations.md) until `maxAttempts` claims were made.
 */

/** Analyses a new order (domain/analysis/pipeline.ts). */
export const ANALYZE_ORDER_JOB = 'analyze_order';
/** Deletes expired uploads, Idempotency-Key records and old finished jobs (domain/intake/cleanup.ts). */
export const CLEANUP_JOB = 'cleanup';

/**
 * Sends one webhook delivery (domain/webhooks/delivery.ts). Queued by the outbox triggers
 * (migrations/0009_webhooks.sql) and by the delivery itself for its next attempt: the delivery keeps its own
 * retry schedule (up to 3 days), so the job's attempts only cover a worker that died mid-send.
 */
export const DELIVER_WEBHOOK_JOB = 'deliver_webhook';

/**
 * Makes a certificate's credentialed file (domain/content-credentials/): queued with the certificate, in
 * its transaction (and by migrations/0019 for certificates issued before). Storage and signing failures
 * are retried like an analysis; a file that cannot carry Content Credentials ends `unsupported` at once.
 */
export const MAKE_CONTENT_CREDENTIALS_JOB = 'make_content_credentials';

export interface JobKindDefaults {
  /** Claims before the job fails for good. */
  maxAttempts: number;
}

/**
 * 25 attempts: with the default schedule (2 s doubling, capped at 12 h, full jitter) the last one runs
 * about 2.6 days after the first on average (5.3 days at most), so a detection service or storage outage
 * of a day leaves every order analysed once it returns. The cleanup job is queued again every ten minutes
 * anyway: one attempt.
 */
export const JOB_KIND_DEFAULTS: Readonly<Record<string, JobKindDefaults>> = {
  [ANALYZE_ORDER_JOB]: { maxAttempts: 25 },
  [CLEANUP_JOB]: { maxAttempts: 1 },
  [DELIVER_WEBHOOK_JOB]: { maxAttempts: 5 },
  [MAKE_CONTENT_CREDENTIALS_JOB]: { maxAttempts: 25 },
};

/** For a kind not listed above. */
export const DEFAULT_MAX_ATTEMPTS = 25;

export function maxAttemptsOf(kind: string): number {
  return JOB_KIND_DEFAULTS[kind]?.maxAttempts ?? DEFAULT_MAX_ATTEMPTS;
}

/** The singleton key of an order's analysis: one unfinished analysis per order. */
export const analysisJobKey = (orderId: string): string => `analyze:${orderId}`;

/** The singleton key of a certificate's credentialed file: one unfinished job per certificate. */
export const contentCredentialsJobKey = (certificateId: string): string => `content-credentials:${certificateId}`;
