/** In-process failure counters: enough for one instance, lost on restart. Memory is bounded. */
import type { FailureStore, WindowCount } from './failure-store.js';

const SWEEP_EVERY = 1_000;

export class MemoryFailureStore implements FailureStore {
  private readonly windows = new Map<string, WindowCount>();
  private writes = 0;

  /** @param maxKeys past this many keys the oldest are dropped, so an address scan cannot exhaust memory. */
  constructor(private readonly maxKeys = 100_000) {}

  async increment(key: string, windowMs: number, now: number): Promise<WindowCount> {
    if (++this.writes % SWEEP_EVERY === 0) this.sweep(now);
    let w = this.windows.get(key);
    if (!w || w.resetAt <= now) {
      w = { count: 0, resetAt: now + windowMs };
      // Re-inserted at the end: Map order is the eviction order.
      this.windows.delete(key);
      this.windows.set(key, w);
      while (this.windows.size > this.maxKeys) this.windows.delete(this.windows.keys().next().value as string);
    }
    w.count += 1;
    return { count: w.count, resetAt: w.resetAt };
  }

  async peekMany(keys: readonly string[], now: number): Promise<Array<WindowCount | null>> {
    return keys.map((key) => {
      const w = this.windows.get(key);
      return w && w.resetAt > now ? { count: w.count, resetAt: w.resetAt } : null;
    });
  }

  async reset(key: string): Promise<void> {
    this.windows.delete(key);
  }

  async close(): Promise<void> {
    this.windows.clear();
  }

  private sweep(now: number): void {
    for (const [key, w] of this.windows) if (w.resetAt <= now) this.windows.delete(key);
  }
}
