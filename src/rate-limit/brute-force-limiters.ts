/**
 * The two brute-force guards of the application (token endpoint and web sign-in) over one failure store:
 * Redis when `REDIS_URL` is set, so every instance sees the same counts, else in-process.
 */
import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../config.js';
import type { FailureStore } from './failure-store.js';
import { FailureLimiter, type FailureLimits, type RefusalListener } from './failure-limiter.js';
import { SIGN_IN_LIMITS, TOKEN_ENDPOINT_LIMITS } from './limits.js';
import { MemoryFailureStore } from './memory-failure-store.js';
import { RedisFailureStore } from './redis-failure-store.js';

export interface BruteForceLimiters {
  tokenEndpoint: FailureLimiter;
  signIn: FailureLimiter;
  /** Listens to the refusals of both (e.g. a metrics counter labelled by `limiter` and `rule`). */
  onRefused(listener: RefusalListener): () => void;
  /** Closes the shared store. */
  close(): Promise<void>;
}

export interface BruteForceLimitersOptions {
  store: FailureStore;
  log: FastifyBaseLogger;
  now?: () => number;
  tokenEndpointLimits?: FailureLimits;
  signInLimits?: FailureLimits;
}

/** The store the configuration names. */
export function openFailureStore(config: Pick<Config, 'redisUrl'>): FailureStore {
  return config.redisUrl ? new RedisFailureStore(config.redisUrl) : new MemoryFailureStore();
}

/**
 * @example
 * const limiters = createBruteForceLimiters({ store: openFailureStore(config), log });
 * limiters.onRefused((e) => refusals.inc({ limiter: e.limiter, rule: e.rule }));
 */
export function createBruteForceLimiters(options: BruteForceLimitersOptions): BruteForceLimiters {
  const { store, log, now } = options;
  const tokenEndpoint = new FailureLimiter({ name: 'token_endpoint', store, log, now, limits: options.tokenEndpointLimits ?? TOKEN_ENDPOINT_LIMITS });
  const signIn = new FailureLimiter({ name: 'sign_in', store, log, now, limits: options.signInLimits ?? SIGN_IN_LIMITS });
  return {
    tokenEndpoint,
    signIn,
    onRefused(listener) {
      const offs = [tokenEndpoint.onRefused(listener), signIn.onRefused(listener)];
      return () => offs.forEach((off) => off());
    },
    close: () => store.close(),
  };
}
