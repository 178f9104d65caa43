import assert from 'node:assert/strict';
import { test } from 'node:test';
import { SignInRateLimiter } from './sign-in-rate-limit.js';

test('blocks a key after maxFailures inside the window and releases it when the window slides', () => {
  let now = 1_000_000;
  const limiter = new SignInRateLimiter({ maxFailures: 3, windowMs: 60_000, now: () => now });
  for (let i = 0; i < 3; i++) {
    assert.equal(limiter.check(['email:a', 'ip:1']).blocked, false);
    limiter.recordFailure(['email:a', 'ip:1']);
    now += 1000;
  }
  const verdict = limiter.check(['email:a']);
  assert.equal(verdict.blocked, true);
  assert.equal(verdict.retryAfterSeconds, 57);
  assert.equal(limiter.check(['ip:1', 'email:b']).blocked, true, 'the address is blocked for any e-mail');
  assert.equal(limiter.check(['email:b', 'ip:2']).blocked, false);
  now += 57_000;
  assert.equal(limiter.check(['email:a']).blocked, false);
});

test('reset forgets a key and memory stays bounded', () => {
  const limiter = new SignInRateLimiter({ maxFailures: 1, maxKeys: 2 });
  limiter.recordFailure(['k1']);
  assert.equal(limiter.check(['k1']).blocked, true);
  limiter.reset('k1');
  assert.equal(limiter.check(['k1']).blocked, false);
  limiter.recordFailure(['a']);
  limiter.recordFailure(['b']);
  limiter.recordFailure(['c']);
  assert.equal(limiter.check(['a']).blocked, false, 'the oldest key was evicted');
  assert.equal(limiter.check(['c']).blocked, true);
});
