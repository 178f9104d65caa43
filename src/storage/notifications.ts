/**
 * PostgreSQL LISTEN/NOTIFY for the instances of a fleet: one connection of the pool is kept for listening
 * (it never runs queries), and each notification of a channel is handed to that channel's handlers. The
 * database sends them (migrations/0010 triggers) when jobs are queued and when an API client changes, so
 * every instance learns at once what it would otherwise see only at its next poll or cache expiry.
 *
 * Notifications are an acceleration, never the only path: a lost connection (database restart, network)
 * is reconnected with a growing pause, and meanwhile the worker's polls and the cache's TTL still bound
 * how late an instance learns. After a reconnect every handler is called once (with `null`): whatever was
 * notified while nobody listened is looked at.
 *
 * Embedded PGlite is one process, which wakes its own worker and forgets its own cache entries: no listener.
 */
import type pg from 'pg';

/** The channels migrations/0010's triggers notify. */
export const JOBS_CHANNEL = 'certdesk_jobs';
export const CLIENT_ACCESS_CHANNEL = 'certdesk_client_access';

export type NotificationHandler = (payload: string | null) => void;

export interface NotificationsOptions {
  /** Where connection errors go (one per failed attempt; the listener keeps trying). */
  onError?: (err: unknown) => void;
  /** First pause before reconnecting, doubled up to 30 s. */
  retryMs?: number;
}

const CHANNEL = /^[a-z_][a-z0-9_]*$/;

export class DatabaseNotifications {
  private readonly handlers = new Map<string, NotificationHandler[]>();
  private client: pg.PoolClient | null = null;
  private closed = false;
  private retryTimer: NodeJS.Timeout | null = null;
  private connecting: Promise<void> | null = null;
  private failures = 0;

  constructor(
    private readonly pool: pg.Pool,
    private readonly options: NotificationsOptions = {},
  ) {}

  /** Calls `handler` for every notification on `channel` (a fixed identifier). Call before `start`. */
  on(channel: string, handler: NotificationHandler): void {
    if (!CHANNEL.test(channel)) throw new Error(`bad channel name ${channel}`);
    this.handlers.set(channel, [...(this.handlers.get(channel) ?? []), handler]);
  }

  /** Connects and listens; resolves once listening (or after the first failure, retrying in the background). */
  start(): Promise<void> {
    return (this.connecting ??= this.connect().finally(() => (this.connecting = null)));
  }

  /** Whether the listening connection is up now (tests, health). */
  get listening(): boolean {
    return this.client !== null;
  }

  private async connect(): Promise<void> {
    if (this.closed) return;
    let client: pg.PoolClient | null = null;
    try {
      client = await this.pool.connect();
      client.on('notification', (message) => this.dispatch(message.channel, message.payload ?? null));
      const lost = (err?: unknown) => this.lost(client!, err);
      client.on('error', lost);
      client.once('end', () => lost(new Error('listening connection ended')));
      for (const channel of this.handlers.keys()) await client.query(`LISTEN ${channel}`);
      if (this.closed) {
        client.release(true);
        return;
      }
      this.client = client;
      // Anything notified while not listening (after a reconnect) is looked at now.
      if (this.failures > 0) for (const channel of this.handlers.keys()) this.dispatch(channel, null);
      this.failures = 0;
    } catch (err) {
      if (client) client.release(true);
      this.options.onError?.(err);
      this.scheduleRetry();
    }
  }

  private lost(client: pg.PoolClient, err: unknown): void {
    if (this.client !== client) return;
    this.client = null;
    client.release(true);
    if (this.closed) return;
    this.options.onError?.(err);
    this.scheduleRetry();
  }

  private scheduleRetry(): void {
    if (this.closed || this.retryTimer) return;
    this.failures += 1;
    const wait = Math.min(30_000, (this.options.retryMs ?? 500) * 2 ** Math.min(6, this.failures - 1));
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
        this.options.onError?.(err);
      }
    }
  }

  /** Stops listening and gives the connection back (destroyed: it holds LISTEN state). */
  async close(): Promise<void> {
    this.closed = true;
    if (this.retryTimer) clearTimeout(this.retryTimer);
    await this.connecting;
    const client = this.client;
    this.client = null;
    client?.release(true);
  }
}
