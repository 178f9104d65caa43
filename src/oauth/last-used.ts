/**
 * `last_used_at` bookkeeping without a database write per token: at most one write per client per
 * interval (default one minute) from each instance, fire-and-forget.
 */
import type { FastifyBaseLogger } from 'fastify';
import type { Executor } from '../storage/database.js';
import { touchApiClientLastUsed } from '../domain/api-clients/api-client.repository.js';

const MAX_TRACKED = 10_000;

export class LastUsedRecorder {
  private readonly lastWrite = new Map<string, number>();

  constructor(
    private readonly db: Executor,
    private readonly log: FastifyBaseLogger,
    private readonly intervalMs = 60_000,
  ) {}

  /** Notes a use of the client; writes only when the previous write is older than the interval. */
  record(clientId: string): void {
    const now = Date.now();
    const previous = this.lastWrite.get(clientId);
    if (previous !== undefined && now - previous < this.intervalMs) return;
    if (this.lastWrite.size >= MAX_TRACKED) {
      for (const [id, at] of this.lastWrite) if (now - at >= this.intervalMs) this.lastWrite.delete(id);
    }
    this.lastWrite.set(clientId, now);
    touchApiClientLastUsed(this.db, clientId, new Date(now)).catch((err: unknown) => {
      this.log.warn({ err, clientId }, 'could not record last_used_at');
    });
  }
}
