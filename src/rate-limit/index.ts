/** Brute-force guards (token endpoint, web sign-in) and their shared failure store. */
export { createBruteForceLimiters, openFailureStore, type BruteForceLimiters, type BruteForceLimitersOptions } from './brute-force-limiters.js';
export { FailureLimiter, type Attempt, type FailureLimits, type Limit, type RefusalEvent, type RefusalListener, type RefusalRule, type Verdict } from './failure-limiter.js';
export type { FailureStore, WindowCount } from './failure-store.js';
export { SIGN_IN_LIMITS, TOKEN_ENDPOINT_LIMITS } from './limits.js';
export { MemoryFailureStore } from './memory-failure-store.js';
export { RedisFailureStore } from './redis-failure-store.js';
