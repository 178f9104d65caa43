/**
 * In-process limit on failed sign-ins, counted separately per e-mail and per client address, so that
 * neither one address guessing many accounts nor many addresses guessing one account get far.
 * Sliding window: a failure counts for `windowMs` after it happened. Memory is bounded by `maxKeys`
 * (the oldest keys are dropped first). Several instances each keep their own counts.
 */
export interface SignInRateLimitOptions {
  maxFailures?: number;
  windowMs?: number;
  maxKeys?: number;
  now?: () => number;
}

export interface RateLimitVerdict {
  blocked: boolean;
  /** Seconds until a new attempt can succeed (0 when not blocked). */
  retryAfterSeconds: number;
}

export class SignInRateLimiter {
  readonly maxFailures: number;
  readonly windowMs: number;
  private readonly maxKeys: number;
  private readonly now: () => number;
  /** key → failure times in milliseconds, oldest first. Map order = insertion order, used for eviction. */
  private readonly failures = new Map<string, number[]>();

  constructor(options: SignInRateLimitOptions = {}) {
    this.maxFailures = options.maxFailures ?? 5;
    this.windowMs = options.windowMs ?? 15 * 60 * 1000;
    this.maxKeys = options.maxKeys ?? 10_000;
    this.now = options.now ?? Date.now;
  }

  /** Blocked when any of the keys has reached the limit inside the window. */
  check(keys: readonly string[]): RateLimitVerdict {
    const now = this.now();
    let retryAt = 0;
    for (const key of keys) {
      const times = this.recent(key, now);
      if (times.length >= this.maxFailures) {
        retryAt = Math.max(retryAt, times[times.length - this.maxFailures]! + this.windowMs);
      }
    }
    return retryAt > now ? { blocked: true, retryAfterSeconds: Math.ceil((retryAt - now) / 1000) } : { blocked: false, retryAfterSeconds: 0 };
  }

  recordFailure(keys: readonly string[]): void {
    const now = this.now();
    for (const key of keys) {
      const times = this.recent(key, now);
      times.push(now);
      this.failures.delete(key);
      this.failures.set(key, times);
    }
    while (this.failures.size > this.maxKeys) {
      const oldest = this.failures.keys().next().value as string;
      this.failures.delete(oldest);
    }
  }

  /** Forgets a key's failures (the e-mail after a successful sign-in). */
  reset(key: string): void {
    this.failures.delete(key);
  }

  private recent(key: string, now: number): number[] {
    const times = (this.failures.get(key) ?? []).filter((t) => t > now - this.windowMs);
    if (times.length === 0) this.failures.delete(key);
    return times;
  }
}
