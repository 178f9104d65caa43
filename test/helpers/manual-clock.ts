/**
 * A clock that stands still until the test moves it: pass `clock.now` where a service takes a Clock.
 *
 * @example
 * const clock = new ManualClock();
 * const cache = new ClientAccessCache(db, 100, clock.now);
 * clock.advance(101); // the entry has expired
 */
import type { Clock } from '../../src/clock.js';

export class ManualClock {
  private current: number;

  /** Starts at `start` (epoch ms), by default the real time now, so tokens signed meanwhile stay valid. */
  constructor(start: number = Date.now()) {
    this.current = start;
  }

  readonly now: Clock = () => this.current;

  advance(ms: number): void {
    this.current += ms;
  }
}
