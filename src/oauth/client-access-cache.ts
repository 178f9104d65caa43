/**
 * Client → acting user resolution, cached for a few seconds. Both client authentication and bearer
 * verification read through it, so a revoked client, a user who left or a changed role takes effect
 * within the TTL (at most 5 s in production, docs/oauth.md) without a query per request.
 *
 * The TTL counts from when the lookup started, not from when its answer arrived: an entry is never older
 * than the TTL measured from the database read it holds. On PostgreSQL every instance is also told when a
 * client changes (LISTEN/NOTIFY, storage/notifications.ts) and forgets it at once (`invalidate`); a lookup
 * that was in flight at that moment is not kept, since it may have read the row before the change.
 */
import { systemClock, type Clock } from '../clock.js';
import type { Executor } from '../storage/database.js';
import { findClientAccess, type ClientAccessRecord } from '../domain/users/user-access.repository.js';

export const DEFAULT_CLIENT_ACCESS_TTL_MS = 5_000;
const MAX_ENTRIES = 10_000;

interface Entry {
  record: ClientAccessRecord | undefined;
  expiresAt: number;
}

export class ClientAccessCache {
  private readonly entries = new Map<string, Entry>();
  private readonly inflight = new Map<string, Promise<ClientAccessRecord | undefined>>();
  /** Bumped by every invalidation: a lookup that started before one is answered but not kept. */
  private generation = 0;

  /** @param ttlMs how long a resolution is reused; 0 disables caching (every call queries). */
  constructor(
    private readonly db: Executor,
    private readonly ttlMs: number = DEFAULT_CLIENT_ACCESS_TTL_MS,
    private readonly now: Clock = systemClock,
  ) {
    if (ttlMs > DEFAULT_CLIENT_ACCESS_TTL_MS) throw new RangeError('client access cache TTL must be at most 5 s');
  }

  /**
   * The cached resolution without waiting: the record when a fresh one is held, else `undefined`
   * (then call `get`). Lets the hot path of bearer verification skip a promise.
   */
  peek(clientId: string): ClientAccessRecord | undefined {
    const hit = this.entries.get(clientId);
    return hit && hit.expiresAt > this.now() ? hit.record : undefined;
  }

  /** The client and its user, or undefined for an unknown client (unknown ids are not cached). */
  async get(clientId: string): Promise<ClientAccessRecord | undefined> {
    const now = this.now();
    const hit = this.entries.get(clientId);
    if (hit && hit.expiresAt > now) return hit.record;
    const pending = this.inflight.get(clientId);
    if (pending) return pending;
    const generation = this.generation;
    const lookup = findClientAccess(this.db, clientId)
      .then((record) => {
        // Unknown ids are not kept: guessed ids must not fill memory, and a new client works at once.
        if (record && this.ttlMs > 0 && generation === this.generation) this.remember(clientId, { record, expiresAt: now + this.ttlMs });
        return record;
      })
      .finally(() => {
        if (this.inflight.get(clientId) === lookup) this.inflight.delete(clientId);
      });
    this.inflight.set(clientId, lookup);
    return lookup;
  }

  /** Forgets one client now (a revocation here, or another instance's through a database notification). */
  invalidate(clientId: string): void {
    this.generation += 1;
    this.entries.delete(clientId);
    // A lookup in flight may have read the row before the change: the next caller queries afresh.
    this.inflight.delete(clientId);
  }

  /** Forgets every client (the notifications were interrupted: changes may have been missed). */
  clear(): void {
    this.generation += 1;
    this.entries.clear();
    this.inflight.clear();
  }

  private remember(clientId: string, entry: Entry): void {
    if (this.entries.size >= MAX_ENTRIES) {
      const now = this.now();
      for (const [id, e] of this.entries) if (e.expiresAt <= now) this.entries.delete(id);
      // Still full of live entries: drop the oldest insertion (Map keeps insertion order).
      if (this.entries.size >= MAX_ENTRIES) this.entries.delete(this.entries.keys().next().value as string);
    }
    this.entries.delete(clientId);
    this.entries.set(clientId, entry);
  }
}
