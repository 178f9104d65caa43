/**
 * Where domain code and the job queue read the time. Production uses the system clock; tests pass a
 * `ManualClock` and move it, instead of sleeping.
 */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

/** A clock that only moves when told to (tests). */
export class ManualClock implements Clock {
  private ms: number;

  constructor(start: Date | number = Date.UTC(2030, 0, 1)) {
    this.ms = typeof start === 'number' ? start : start.getTime();
  }

  now(): Date {
    return new Date(this.ms);
  }

  advance(ms: number): void {
    this.ms += ms;
  }
}
