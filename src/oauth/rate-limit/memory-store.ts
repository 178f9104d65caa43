/** In-process failure counters: enough for one instance, lost on restart. */
import type { FailureStore, WindowCount } from './failure-store.js';

const SWEEP_EVERY = 1_000;

export class MemoryFailureStore implements FailureStore {
  private readonly windows = new Map<string, { count: number; resetAt: number }>();
  private writes = 0;

  async increment(key: string, windowMs: number): Promise<WindowCount> {
    const now = Date.now();
    if (++this.writes % SWEEP_EVERY === 0) this.sweep(now);
    let w = this.windows.get(key);
    if (!w || w.resetAt <= now) {
      w = { count: 0, resetAt: now + windowMs };
      this.windows.set(key, w);
    }
    w.count += 1;
    return { count: w.count, resetInMs: w.resetAt - now };
  }

  async peek(key: string): Promise<WindowCount | null> {
    const now = Date.now();
    const w = this.windows.get(key);
    if (!w || w.resetAt <= now) return null;
    return { count: w.count, resetInMs: w.resetAt - now };
  }

  async close(): Promise<void> {
    this.windows.clear();
  }

  // Expired windows are dropped as failures arrive, so an address scan cannot grow memory unboundedly.
  private sweep(now: number): void {
    for (const [key, w] of this.windows) if (w.resetAt <= now) this.windows.delete(key);
  }
}
