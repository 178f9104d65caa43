/**
 * The brute-force guard shared by the token endpoint and web sign-in. Failures are counted so that an
 * attacker can slow down only himself, never lock out somebody else:
 *
 * - pair: one subject (a client id, an account) from one address. The tight limit: whoever guesses a
 *   secret from one address is stopped there, while the subject's owner, elsewhere, keeps working.
 * - subject: one subject from every address. A much higher ceiling against guessing spread over many
 *   addresses. Past it, only the addresses that have themselves failed for this subject in the window
 *   are refused; an address with a clean record still gets through. Anyone who knows a client id or an
 *   e-mail address could otherwise trip a global lock and shut its owner out.
 * - address: everything one address fails, whatever the subject. A much higher ceiling still, because
 *   many honest users may share one address (an office NAT, a partner's egress).
 * - unknown (optional): failures for subjects that do not exist, per address. Counting them per subject
 *   would let random ids grow the store without bound; the token endpoint uses it (client ids are not
 *   secrets, RFC 6749 2.2), sign-in does not (whether an e-mail has an account must not show).
 *
 * Windows are fixed and start at the first failure. A store failure (Redis down) lets requests through
 * and is logged: an unavailable limiter must not take sign-in or token issuance down with it.
 */
import type { FastifyBaseLogger } from 'fastify';
import type { FailureStore, WindowCount } from './failure-store.js';

export interface Limit {
  /** Failures allowed in one window; the next attempt is refused. */
  max: number;
  windowMs: number;
}

export interface FailureLimits {
  pair: Limit;
  subject: Limit;
  address: Limit;
  /** When set, failures for unknown subjects are counted per address only, under this limit. */
  unknownPerAddress?: Limit;
}

export interface Attempt {
  /** The client id or account key; null when no such subject exists (counted per address). */
  subject: string | null;
  /** The client address, after trusted proxies. */
  address: string;
}

export type RefusalRule = 'pair' | 'subject' | 'address' | 'unknown';

export interface Verdict {
  blocked: boolean;
  /** Whole seconds until an attempt may succeed again (0 when not blocked). */
  retryAfterSeconds: number;
  /** The rule that refused (the one that holds longest), when blocked. */
  rule?: RefusalRule;
  /** Failures of this subject from this address in the current window (a success clears them). */
  pairFailures: number;
}

/** What a refusal listener is told; `limiter` is the limiter's name (`token_endpoint`, `sign_in`). */
export interface RefusalEvent {
  limiter: string;
  rule: RefusalRule;
  retryAfterSeconds: number;
}

export type RefusalListener = (event: RefusalEvent) => void;

export interface FailureLimiterOptions {
  /** Names the limiter in keys, logs and refusal events. */
  name: string;
  store: FailureStore;
  log: FastifyBaseLogger;
  limits: FailureLimits;
  /** Epoch milliseconds; tests inject a clock. */
  now?: () => number;
}

// Addresses never contain a space, so `address subject` cannot be forged into another pair's key.
const keysOf = (name: string, a: Attempt) => ({
  pair: `${name}:pair:${a.address} ${a.subject ?? ''}`,
  subject: `${name}:subject:${a.subject ?? ''}`,
  address: `${name}:address:${a.address}`,
  unknown: `${name}:unknown:${a.address}`,
});

export class FailureLimiter {
  readonly name: string;
  readonly limits: FailureLimits;
  private readonly store: FailureStore;
  private readonly log: FastifyBaseLogger;
  private readonly now: () => number;
  private readonly listeners = new Set<RefusalListener>();

  constructor(options: FailureLimiterOptions) {
    this.name = options.name;
    this.store = options.store;
    this.log = options.log;
    this.limits = options.limits;
    this.now = options.now ?? Date.now;
  }

  /**
   * Called on every refusal (for metrics); returns a function that removes the listener.
   * @example limiter.onRefused(({ limiter, rule }) => refusals.inc({ limiter, rule }));
   */
  onRefused(listener: RefusalListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Whether the attempt may go ahead; call before checking the secret. */
  async check(attempt: Attempt): Promise<Verdict> {
    const now = this.now();
    const keys = keysOf(this.name, attempt);
    const known = this.countsAsKnown(attempt);
    let counts: Array<WindowCount | null>;
    try {
      counts = await this.store.peekMany(known ? [keys.pair, keys.subject, keys.address] : [keys.unknown, keys.address], now);
    } catch (err) {
      this.log.warn({ err, limiter: this.name }, 'brute-force limiter unavailable; not limiting');
      return { blocked: false, retryAfterSeconds: 0, pairFailures: 0 };
    }
    const refusals: Array<{ rule: RefusalRule; until: number }> = [];
    const over = (c: WindowCount | null, limit: Limit) => c !== null && c.count >= limit.max;
    let pairFailures = 0;
    if (known) {
      const [pair, subject, address] = counts;
      pairFailures = pair?.count ?? 0;
      if (over(pair!, this.limits.pair)) refusals.push({ rule: 'pair', until: pair!.resetAt });
      // Past the subject's ceiling, only addresses that failed for it themselves are refused.
      if (over(subject!, this.limits.subject) && pair) refusals.push({ rule: 'subject', until: Math.min(pair.resetAt, subject!.resetAt) });
      if (over(address!, this.limits.address)) refusals.push({ rule: 'address', until: address!.resetAt });
    } else {
      const [unknown, address] = counts;
      if (over(unknown!, this.limits.unknownPerAddress!)) refusals.push({ rule: 'unknown', until: unknown!.resetAt });
      if (over(address!, this.limits.address)) refusals.push({ rule: 'address', until: address!.resetAt });
    }
    const longest = refusals.reduce<{ rule: RefusalRule; until: number } | null>((a, r) => (a === null || r.until > a.until ? r : a), null);
    if (!longest || longest.until <= now) return { blocked: false, retryAfterSeconds: 0, pairFailures };
    const retryAfterSeconds = Math.max(1, Math.ceil((longest.until - now) / 1000));
    const event: RefusalEvent = { limiter: this.name, rule: longest.rule, retryAfterSeconds };
    for (const listener of this.listeners) {
      try {
        listener(event);
      } catch (err) {
        this.log.warn({ err }, 'rate-limit refusal listener failed');
      }
    }
    return { blocked: true, retryAfterSeconds, rule: longest.rule, pairFailures };
  }

  /** Counts one failed attempt. */
  async recordFailure(attempt: Attempt): Promise<void> {
    const now = this.now();
    const keys = keysOf(this.name, attempt);
    const { pair, subject, address, unknownPerAddress } = this.limits;
    const writes: Array<[string, Limit]> = this.countsAsKnown(attempt)
      ? [[keys.pair, pair], [keys.subject, subject], [keys.address, address]]
      : [[keys.unknown, unknownPerAddress!], [keys.address, address]];
    try {
      await Promise.all(writes.map(([key, limit]) => this.store.increment(key, limit.windowMs, now)));
    } catch (err) {
      this.log.warn({ err, limiter: this.name }, 'brute-force limiter unavailable; failure not counted');
    }
  }

  /** Unknown subjects have a rule of their own only when the limits give one. */
  private countsAsKnown(attempt: Attempt): boolean {
    return attempt.subject !== null || this.limits.unknownPerAddress === undefined;
  }

  /** A success clears this subject's failures from this address (only when it had some: no write otherwise). */
  async recordSuccess(attempt: Attempt, verdict: Verdict): Promise<void> {
    if (verdict.pairFailures === 0 || attempt.subject === null) return;
    try {
      await this.store.reset(keysOf(this.name, attempt).pair);
    } catch (err) {
      this.log.warn({ err, limiter: this.name }, 'brute-force limiter unavailable; success not recorded');
    }
  }
}
