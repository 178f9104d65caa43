/** Where failed-authentication counters live: in-process by default, Redis when instances share limits. */

export interface WindowCount {
  count: number;
  /** Milliseconds until the window (and the count) ends. */
  resetInMs: number;
}

/** Fixed-window counters keyed by an opaque string. */
export interface FailureStore {
  /** Adds one failure to `key` and returns the new count; the window starts at the first failure. */
  increment(key: string, windowMs: number): Promise<WindowCount>;
  /** The current count of `key`, or null when it has none. */
  peek(key: string): Promise<WindowCount | null>;
  close(): Promise<void>;
}
