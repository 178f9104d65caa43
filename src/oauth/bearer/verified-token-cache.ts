/**
 * Remembers tokens whose signature and claims were verified, until they expire, so that a client
 * reusing its token (the normal case: one token per hour) costs a map lookup instead of an ECDSA
 * verification on every request. Only the exact token string hits; revocation is unaffected because
 * the client's status is still resolved on each request (ClientAccessCache, ≤ 5 s).
 */
import { CLOCK_TOLERANCE_SECONDS, type VerifiedToken } from '../access-token.js';

const DEFAULT_MAX_ENTRIES = 10_000;

interface Entry {
  /** The whole token: a hit needs the exact string, not just the same signature. */
  token: string;
  verified: VerifiedToken;
  /** Epoch ms after which the token is no longer accepted (exp + tolerance). */
  expiresAt: number;
}

/**
 * Entries are keyed by the signature part (short to hash) and hit only when the whole token is equal:
 * a valid signature glued to another header or payload never matches.
 */
function keyOf(token: string): string {
  return token.slice(token.lastIndexOf('.') + 1);
}

export class VerifiedTokenCache {
  private readonly entries = new Map<string, Entry>();

  constructor(private readonly maxEntries = DEFAULT_MAX_ENTRIES) {}

  get(token: string, now = Date.now()): VerifiedToken | undefined {
    const key = keyOf(token);
    const entry = this.entries.get(key);
    if (!entry || entry.token !== token) return undefined;
    if (entry.expiresAt <= now) {
      this.entries.delete(key);
      return undefined;
    }
    return entry.verified;
  }

  set(token: string, verified: VerifiedToken): void {
    const exp = verified.payload.exp;
    if (typeof exp !== 'number') return;
    if (this.entries.size >= this.maxEntries) {
      // Oldest first (Map keeps insertion order): long-lived entries go before fresh ones.
      this.entries.delete(this.entries.keys().next().value as string);
    }
    this.entries.set(keyOf(token), { token, verified, expiresAt: (exp + CLOCK_TOLERANCE_SECONDS) * 1000 });
  }

  get size(): number {
    return this.entries.size;
  }
}
