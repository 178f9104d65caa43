/**
 * PostgreSQL LISTEN/NOTIFY for the instances of a fleet: one connection of its own, outside the pool, is
 * kept for listening (it never runs queries; the pool's connections stay the queries'), and each
 * notification of a channel is handed to that channel's handlers. The
 * database sends them (migrations/0010 triggers) when jobs are queued and when an API client changes, so
 * every instance learns at once what it would otherwise see only at its next poll or cache expiry.
 *
 * Owned by the database handle (storage/database.ts), which closes it with the pool: the services of a
 * process subscribe and unsubscribe, and the connection opens with the first subscription.
 *
 * Notifications are an acceleration, never the only path: a lost connection (database restart, network)
 * is reconnected with a growing pause, and meanwhile the worker's polls and the cache's TTL still bound
 * how late an instance learns. After a reconnect every handler is called once (with `null`): whatever was
 * notified while nobody listened is looked at.
 *
 * Embedded PGlite is one process, which wakes its own worker and forgets its own cache entries: no listener.
 */
import pg from 'pg';
import { DatabaseUnavailableError } from './database-availability.js';

/** The channels migrations/0010's triggers notify. */
export const JOBS_CHANNEL = 'certdesk_jobs';
export const CLIENT_ACCESS_CHANNEL = 'certdesk_client_access';

export type NotificationHandler = (payload: string | null) => void;

const CHANNEL = /^[a-z_][a-z0-9_]*$/;

export class DatabaseNotifications {
  private readonly handlers = new Map<string, Set<NotificationHandler>>();
  /** Where connection errors go (one per failed attempt; the listener keeps trying). Set by the subscriber. */
  onError: (err: unknown) => void = () => undefined;
  private client: pg.Client | null = null;
  private closed = false;
  private retryTimer: NodeJS.Timeout | null = null;
  private connecting: Promise<void> | null = null;
  private failures = 0;

  constructor(
    private readonly connectionString: string,
    /** First pause before reconnecting, doubled up to 30 s. */
    private readonly retryMs = 500,
  ) {}

  /**
   * Calls `handler` for every notification on `channel` (a fixed identifier) from now on; resolves once
   * listening (or after a failed attempt: it keeps trying in the background). @returns the unsubscribe.
   */
  async subscribe(channel: string, handler: NotificationHandler): Promise<() => void> {
    if (!CHANNEL.test(channel)) throw new Error(`bad channel name ${channel}`);
    const known = this.handlers.get(channel);
    if (known) known.add(handler);
    else {
      this.handlers.set(channel, new Set([handler]));
      if (this.client) await this.client.query(`LISTEN ${channel}`).catch((err: unknown) => this.lost(this.client!, err));
    }
    if (!this.client) await this.start();
    return () => this.handlers.get(channel)?.delete(handler);
  }

  /** Whether the listening connection is up now. */
  get listening(): boolean {
    return this.client !== null;
  }

  private start(): Promise<void> {
    return (this.connecting ??= this.connect().finally(() => (this.connecting = null)));
  }

  private async connect(): Promise<void> {
    if (this.closed || this.client) return;
    const own = new pg.Client({ connectionString: this.connectionString, connectionTimeoutMillis: 10_000 });
    own.on('notification', (message) => this.dispatch(message.channel, message.payload ?? null));
    own.on('error', (err) => this.lost(own, err));
    own.once('end', () => this.lost(own, new DatabaseUnavailableError('the listening connection ended')));
    try {
      await own.connect();
      for (const channel of this.handlers.keys()) await own.query(`LISTEN ${channel}`);
      if (this.closed) {
        await own.end().catch(() => undefined);
        return;
      }
      this.client = own;
      // Anything notified while not listening (after a reconnect) is looked at now.
      if (this.failures > 0) for (const channel of this.handlers.keys()) this.dispatch(channel, null);
      this.failures = 0;
    } catch (err) {
      own.end().catch(() => undefined);
      this.onError(err);
      this.scheduleRetry();
    }
  }

  private lost(client: pg.Client, err: unknown): void {
    if (this.client !== client) return;
    this.client = null;
    client.end().catch(() => undefined);
    if (this.closed) return;
    this.onError(err);
    this.scheduleRetry();
  }

  private scheduleRetry(): void {
    if (this.closed || this.retryTimer) return;
    this.failures += 1;
    const wait = Math.min(30_000, this.retryMs * 2 ** Math.min(6, this.failures - 1));
    this.retryTimer = setTimeout(() => {
      this.retryTimer = null;
      void this.start();
    }, wait);
    this.retryTimer.unref();
  }

  private dispatch(channel: string, payload: string | null): void {
    for (const handler of this.handlers.get(channel) ?? []) {
      try {
        handler(payload);
      } catch (err) {
        this.onError(err);
      }
    }
  }

  /** Stops listening and closes the connection. The handle calls it. */
  async close(): Promise<void> {
    this.closed = true;
    if (this.retryTimer) clearTimeout(this.retryTimer);
    await this.connecting;
    const client = this.client;
    this.client = null;
    await client?.end().catch(() => undefined);
  }
}
