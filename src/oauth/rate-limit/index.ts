export { AuthFailureLimiter, type LimiterOptions, type AttemptSubject } from './auth-failure-limiter.js';
export type { FailureStore, WindowCount } from './failure-store.js';
export { MemoryFailureStore } from './memory-store.js';
export { RedisFailureStore } from './redis-store.js';
