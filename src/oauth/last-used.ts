/**
 * `last_used_at` bookkeeping without a database write per token: at most one write per client per
 * interval (default one minute) from each instance, fire-and-forget.
 */
import type { FastifyBaseLogger } from 'fastify';
import { systemClock, type Clock } from '../clock.js';
import type { Executor } from '../storage/database.js';
import { touchApiClientLastUsed } from '../domain/api-clients/api-client.repository.js';
import { isDatabaseUnavailable } from '../storage/database-availability.js';

const MAX_TRACKED = 10_000;

export class LastUsedRecorder {
  private readonly lastWrite = new Map<string, number>();
  private readonly pending = new Set<Promise<void>>();

  constructor(
    private readonly db: Executor,
    private readonly log: FastifyBaseLogger,
    private readonly intervalMs = 60_000,
    private readonly now: Clock = systemClock,
  ) {}

  /** Notes a use of the client; writes only when the previous write is older than the interval. */
  record(clientId: string): void {
    const now = this.now();
    const previous = this.lastWrite.get(clientId);
    if (previous !== undefined && now - previous < this.intervalMs) return;
    if (this.lastWrite.size >= MAX_TRACKED) {
      for (const [id, at] of this.lastWrite) if (now - at >= this.intervalMs) this.lastWrite.delete(id);
    }
    this.lastWrite.set(clientId, now);
    const write = touchApiClientLastUsed(this.db, clientId, new Date(now))
      .catch((err: unknown) => {
        // During an outage the outage itself is logged once (http/plugins/database-outage.ts); a stack
        // trace per token issued would flood the log. The next use after the interval writes again.
        if (isDatabaseUnavailable(err)) return;
        this.log.warn({ err, clientId }, 'could not record last_used_at');
      })
      .finally(() => this.pending.delete(write));
    this.pending.add(write);
  }

  /** Resolves when the writes started so far have finished (shutdown waits for them; tests too). */
  async settled(): Promise<void> {
    await Promise.all(this.pending);
  }
}
