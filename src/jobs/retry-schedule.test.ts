/** The retry schedule: exponential ceilings up to the cap, full jitter within them, the default's reach. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { maxAttemptsOf } from '../domain/background/job-kinds.js';
import { backoffCeilingMs, DEFAULT_RETRY_SCHEDULE, fullJitterBackoff } from './retry-schedule.js';

describe('retry schedule', () => {
  it('doubles from the base up to the cap', () => {
    const s = { baseMs: 100, capMs: 1000 };
    assert.deepEqual([1, 2, 3, 4, 5, 6, 60].map((n) => backoffCeilingMs(s, n)), [100, 200, 400, 800, 1000, 1000, 1000]);
  });

  it('full jitter: anywhere from 0 to the ceiling', () => {
    const s = { baseMs: 1000, capMs: 60_000 };
    assert.equal(fullJitterBackoff(s, () => 0)(3), 0);
    assert.equal(fullJitterBackoff(s, () => 0.5)(3), 2000);
    assert.equal(fullJitterBackoff(s, () => 0.999999)(10), 59_999);
  });

  it('the default schedule of an analysis reaches days, not seconds', () => {
    const attempts = maxAttemptsOf('analyze_order');
    assert.equal(attempts, 25);
    let ceilings = 0;
    for (let n = 1; n < attempts; n++) ceilings += backoffCeilingMs(DEFAULT_RETRY_SCHEDULE, n);
    const days = ceilings / 86_400_000;
    // Most the last attempt can come after the first: ~5.3 days; on average half of it (~2.6 days).
    assert.ok(days > 5 && days < 5.5, `${days} days`);
    assert.equal(backoffCeilingMs(DEFAULT_RETRY_SCHEDULE, 1), 2000);
    assert.equal(backoffCeilingMs(DEFAULT_RETRY_SCHEDULE, 24), 12 * 3_600_000);
  });
});
