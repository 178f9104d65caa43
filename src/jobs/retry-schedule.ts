/**
 * How long a job waits after a transient failure: exponential backoff with full jitter. The n-th failed
 * attempt (1-based) waits a uniformly random time between 0 and min(cap, base × 2^(n-1)); the jitter
 * spreads the retries of many jobs that failed together (a detection service outage) so they do not all
 * come back at once.
 *
 * With the defaults (2 s, capped at 12 h) and 25 attempts, the waits' ceilings are 2 s, 4 s, ... 9.1 h,
 * then 12 h for attempts 16 to 24: the last attempt comes about 2.6 days after the first on average,
 * 5.3 days at most (the table is in docs/operations.md). Tests and small deployments shorten both
 * (`JOB_RETRY_BASE_MS`, `JOB_RETRY_CAP_MS`).
 */
export interface RetrySchedule {
  /** Ceiling of the first wait. */
  baseMs: number;
  /** Largest ceiling of any wait. */
  capMs: number;
}

export const DEFAULT_RETRY_SCHEDULE: RetrySchedule = { baseMs: 2000, capMs: 12 * 3_600_000 };

/** The largest wait after the n-th failed attempt (1-based). */
export function backoffCeilingMs(schedule: RetrySchedule, attempt: number): number {
  const exponent = Math.min(Math.max(attempt, 1) - 1, 50); // 2^50 × base is past any cap
  return Math.min(schedule.capMs, schedule.baseMs * 2 ** exponent);
}

/** The wait after the n-th failed attempt: uniform in [0, ceiling] ("full jitter"). */
export function fullJitterBackoff(schedule: RetrySchedule, random: () => number = Math.random): (attempt: number) => number {
  return (attempt) => Math.floor(random() * backoffCeilingMs(schedule, attempt));
}
