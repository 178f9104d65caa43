/**
 * Brute-force guard of the token endpoint: failed client authentications are counted per client_id
 * and per source address in a fixed window; past the limit, requests for that client or from that
 * address are refused (429) before the secret is even checked, until the window ends.
 *
 * A store failure (Redis down) lets requests through and is logged: an unavailable limiter must not
 * take token issuance down with it.
 */
import type { FastifyBaseLogger } from 'fastify';
import type { FailureStore } from './failure-store.js';

export interface LimiterOptions {
  /** Failures allowed per window before requests are refused. Default 10. */
  maxFailures?: number;
  /** Window length. Default 5 minutes. */
  windowMs?: number;
}

export interface AttemptSubject {
  clientId: string | undefined;
  address: string;
}

export class AuthFailureLimiter {
  readonly maxFailures: number;
  readonly windowMs: number;

  constructor(
    private readonly store: FailureStore,
    private readonly log: FastifyBaseLogger,
    options: LimiterOptions = {},
  ) {
    this.maxFailures = options.maxFailures ?? 10;
    this.windowMs = options.windowMs ?? 5 * 60_000;
  }

  private keys(subject: AttemptSubject): string[] {
    const keys = [`ip:${subject.address}`];
    if (subject.clientId) keys.push(`client:${subject.clientId}`);
    return keys;
  }

  /** Seconds until the subject may try again, or 0 when it is not blocked. */
  async blockedFor(subject: AttemptSubject): Promise<number> {
    try {
      const counts = await Promise.all(this.keys(subject).map((k) => this.store.peek(k)));
      let wait = 0;
      for (const c of counts) if (c && c.count >= this.maxFailures) wait = Math.max(wait, c.resetInMs);
      return wait / 1000;
    } catch (err) {
      this.log.warn({ err }, 'auth failure limiter unavailable; not limiting');
      return 0;
    }
  }

  /** Counts one failed authentication against the client id and the address. */
  async recordFailure(subject: AttemptSubject): Promise<void> {
    try {
      await Promise.all(this.keys(subject).map((k) => this.store.increment(k, this.windowMs)));
    } catch (err) {
      this.log.warn({ err }, 'auth failure limiter unavailable; failure not counted');
    }
  }

  close(): Promise<void> {
    return this.store.close();
  }
}
