/** What the token endpoint and bearer verification share, built once per process by the composition root. */
import type { FastifyBaseLogger } from 'fastify';
import type { Clock } from '../clock.js';
import type { Config } from '../config.js';
import type { Db } from '../storage/database.js';
import type { TokenSettings } from './access-token.js';
import { ClientAccessCache, DEFAULT_CLIENT_ACCESS_TTL_MS } from './client-access-cache.js';
import { KeyStore } from './keys/key-store.js';
import { LastUsedRecorder } from './last-used.js';
import { VerifiedTokenCache } from './bearer/verified-token-cache.js';
import type { FailureLimiter } from '../rate-limit/index.js';

export interface OAuthServices {
  tokens: TokenSettings;
  keys: KeyStore;
  clients: ClientAccessCache;
  /** The token endpoint's brute-force guard (built by the application, shared store). */
  limiter: FailureLimiter;
  lastUsed: LastUsedRecorder;
  /** Tokens already verified, until they expire. */
  verifiedTokens: VerifiedTokenCache;
}

/** Timings that tests shorten or move; production uses the defaults. */
export interface OAuthTuning {
  /** How long a client → user resolution is reused (≤ 5 s). */
  clientAccessTtlMs?: number;
  /** How often signing keys are re-read from the database. Default 60 s. */
  keyRefreshIntervalMs?: number;
  /** Minimum time between two `last_used_at` writes for one client. Default 60 s. */
  lastUsedIntervalMs?: number;
  /** Time for the client cache and last_used_at throttling. */
  clock?: Clock;
}

export interface OAuthServicesInput {
  db: Db;
  config: Pick<Config, 'issuerUrl' | 'tokenAudience' | 'accessTokenTtlSeconds' | 'masterKey' | 'env'>;
  log: FastifyBaseLogger;
  /** The token endpoint's brute-force guard (its store is shared with web sign-in). */
  limiter: FailureLimiter;
  tuning?: OAuthTuning;
}

/**
 * Builds and starts the token service's state: signing keys loaded (the first one created if needed)
 * and refreshed periodically. `stop()` ends the refresh and waits for pending `last_used_at` writes.
 *
 * @example
 * const oauth = await startOAuthServices({ db, config, log, limiter: limiters.tokenEndpoint });
 */
export async function startOAuthServices(input: OAuthServicesInput): Promise<OAuthServices & { stop(): Promise<void> }> {
  const { db, config, log, limiter, tuning = {} } = input;
  // Built first: it validates its TTL before anything starts a timer.
  const clients = new ClientAccessCache(db, tuning.clientAccessTtlMs ?? DEFAULT_CLIENT_ACCESS_TTL_MS, tuning.clock);
  const keys = new KeyStore({
    db,
    masterKey: config.masterKey,
    accessTokenTtlSeconds: config.accessTokenTtlSeconds,
    env: config.env,
    log,
    refreshIntervalMs: tuning.keyRefreshIntervalMs,
  });
  await keys.start();
  const lastUsed = new LastUsedRecorder(db, log, tuning.lastUsedIntervalMs, tuning.clock);
  return {
    tokens: { issuer: config.issuerUrl, audience: config.tokenAudience, ttlSeconds: config.accessTokenTtlSeconds },
    keys,
    clients,
    limiter,
    lastUsed,
    verifiedTokens: new VerifiedTokenCache(),
    stop: async () => {
      keys.stop();
      await lastUsed.settled();
    },
  };
}
