/** When and how long to wait before retrying: exponential backoff with full jitter, or `Retry-After`. */

export interface RetryPolicy {
  /** Retries after the first attempt (default 4). */
  maxRetries: number;
  /** First backoff step in milliseconds (default 250). */
  baseDelayMs: number;
  /** Longest wait between attempts in milliseconds, `Retry-After` included (default 30,000). */
  maxDelayMs: number;
}

export const DEFAULT_RETRY: RetryPolicy = { maxRetries: 4, baseDelayMs: 250, maxDelayMs: 30_000 };

/** `Retry-After` (delay-seconds or an HTTP date) in milliseconds from `now`, or null. */
export function parseRetryAfter(value: string | null, now: number): number | null {
  if (value === null || value.trim() === '') return null;
  const trimmed = value.trim();
  if (/^\d+(\.\d+)?$/.test(trimmed)) return Math.round(Number(trimmed) * 1000);
  const date = Date.parse(trimmed);
  if (Number.isNaN(date)) return null;
  return Math.max(0, date - now);
}

/**
 * Wait before retry number `attempt` (1-based). The server's `Retry-After` wins when given (it knows
 * when capacity returns), with a little jitter on top so that many clients do not return at the same
 * instant; otherwise full jitter over an exponential step (AWS architecture blog, "Exponential Backoff
 * And Jitter").
 */
export function retryDelayMs(policy: RetryPolicy, attempt: number, retryAfterMs: number | null, random: () => number = Math.random): number {
  if (retryAfterMs !== null) return Math.min(policy.maxDelayMs, retryAfterMs + Math.floor(random() * Math.min(1000, policy.baseDelayMs)));
  const step = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (attempt - 1));
  return Math.floor(random() * step);
}
