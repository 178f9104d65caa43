/**
 * Where failed-authentication counters live: in-process by default, Redis when instances share limits.
 * Both limiters (token endpoint and web sign-in) use one store. Every call is given the caller's clock
 * (`now`, epoch milliseconds), so a window ends when the limiter's clock says so, in memory and in Redis
 * alike: tests move an injected clock instead of sleeping.
 */

export interface WindowCount {
  count: number;
  /** Epoch milliseconds at which the window (and its count) ends. */
  resetAt: number;
}

/** Fixed-window counters keyed by an opaque string. */
export interface FailureStore {
  /** Adds one failure to `key`; a window starts at the first failure and lasts `windowMs`. */
  increment(key: string, windowMs: number, now: number): Promise<WindowCount>;
  /** The current window of each key (null when it has none or it has ended), in one round trip. */
  peekMany(keys: readonly string[], now: number): Promise<Array<WindowCount | null>>;
  /** Forgets a key (a success clears the failures of that subject at that address). */
  reset(key: string): Promise<void>;
  close(): Promise<void>;
}
