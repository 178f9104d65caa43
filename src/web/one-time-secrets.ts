/**
 * Post/redirect/get for a new credential: the POST puts what the "created" page shows into this store
 * and redirects to a URL naming a random ticket; the GET takes it out. So the secret is shown exactly
 * once, a reload neither re-posts the form (no second credential) nor shows the secret again, and the
 * secret never appears in a URL. Tickets are bound to the session that created them and expire quickly;
 * they live in this process only (a load balancer without affinity may send the GET elsewhere, where it
 * finds nothing and the organization page says the credential exists but its secret is no longer shown).
 */
import { randomBytes } from 'node:crypto';

export interface OneTimeSecretsOptions {
  /** How long an unviewed ticket lives. Default 5 minutes. */
  ttlMs?: number;
  /** Injected clock (tests). */
  now?: () => number;
}

export class OneTimeSecrets<T> {
  private readonly entries = new Map<string, { owner: string; value: T; expiresAt: number }>();
  private readonly ttlMs: number;
  private readonly now: () => number;

  constructor(options: OneTimeSecretsOptions = {}) {
    this.ttlMs = options.ttlMs ?? 5 * 60_000;
    this.now = options.now ?? Date.now;
  }

  /** Stores `value` for `owner` (a session) and returns the ticket that takes it out once. */
  put(owner: string, value: T): string {
    this.sweep();
    const ticket = randomBytes(24).toString('base64url');
    this.entries.set(ticket, { owner, value, expiresAt: this.now() + this.ttlMs });
    return ticket;
  }

  /** The value, once, for its owner before it expires; afterwards (or for anyone else) undefined. */
  take(owner: string, ticket: string): T | undefined {
    const entry = this.entries.get(ticket);
    if (!entry || entry.owner !== owner) return undefined;
    this.entries.delete(ticket);
    return entry.expiresAt > this.now() ? entry.value : undefined;
  }

  private sweep(): void {
    const now = this.now();
    for (const [ticket, entry] of this.entries) if (entry.expiresAt <= now) this.entries.delete(ticket);
  }
}
