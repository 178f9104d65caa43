/**
 * PostgreSQL LISTEN/NOTIFY for the instances of a fleet: the one listening connection of a process. It is
 * kept outside the pool (a pooled client would be handed to queries and its LISTEN lost) and runs no
 * queries but its LISTENs and its heartbeat; the pool's connections stay the queries'. Each notification
 * of a channel is handed to that channel's handlers. The database sends them when jobs are queued and
 * when an API client changes (migrations/0010 triggers) and when a certificate changes (migrations/0011),
 * so every instance learns at once what it would otherwise see only at its next poll or cache expiry.
 *
 * Owned by the database handle (storage/database.ts), which closes it with the pool: the services of a
 * process subscribe and unsubscribe, and the connection opens with the first subscription. A process thus
 * needs its pool plus one connection (PostgreSQL's max_connections).
 *
 * Notifications are an acceleration, never the only path: a lost connection (database restart, network)
 * is reconnected with a growing pause, and meanwhile the worker's polls and the caches' TTLs still bound
 * how late an instance learns. Every handler is called with `null` (a reset: whatever was notified while
 * nobody listened is unknown) when the connection is lost and again once a new one listens.
 *
 * Health, for a cache that serves from memory only while it can rely on notifications: while someone
 * holds `requireHeartbeat()`, a `SELECT 1` runs on the listening connection every `heartbeatMs`.
 * PostgreSQL sends a listening session its pending notifications before it answers a command, so when the
 * answer to a heartbeat sent at time T arrives, notifications committed well before T have been
 * delivered: `confirmedAt` is that T (on the injected clock). `isHealthy(now, channel)` is true only while
 * that confirmation is at most `livenessMs` old and came from a heartbeat sent after the channel's LISTEN
 * on the current connection: a silently dead connection delivers nothing, and only the missing heartbeat
 * says so. A heartbeat left unanswered for long (the peer vanished without a reset) replaces the connection.
 *
 * Embedded PGlite is one process, which wakes its own worker and forgets its own cache entries: no listener
 * (its socket clients share one session, and the raw protocol does not dispatch notifications).
 */
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { systemClock, type Clock } from '../clock.js';
import { DatabaseUnavailableError } from './database-availability.js';

/** The channels migrations/0010's triggers notify. */
export const JOBS_CHANNEL = 'certdesk_jobs';
export const CLIENT_ACCESS_CHANNEL = 'certdesk_client_access';

/** The prefix of every process's listening session name (its application_name): see `liveSession`. */
export const LIVE_SESSION_PREFIX = 'certdesk-live ';

/** A notification's payload, or `null`: a reset (the connection was lost, or listens again). */
export type NotificationHandler = (payload: string | null) => void;

const CHANNEL = /^[a-z_][a-z0-9_]*$/;

export interface DatabaseNotificationsOptions {
  /** Times the heartbeat (`confirmedAt`); the callers of `isHealthy` pass its `now`. Default: the system's. */
  clock?: Clock;
  /** First pause before reconnecting, doubled up to 30 s (default 500 ms). */
  retryMs?: number;
  /** Time between heartbeats while one is required (default 250 ms). */
  heartbeatMs?: number;
  /** How old the last confirmation may be for the connection to count as healthy (default 1000 ms). */
  livenessMs?: number;
  /** The connection's application_name (pg_stat_activity). */
  applicationName?: string;
}

export class DatabaseNotifications {
  private readonly handlers = new Map<string, Set<NotificationHandler>>();
  /** Where connection errors go (one per failed attempt; the listener keeps trying). Set by the subscriber. */
  onError: (err: unknown) => void = () => undefined;
  readonly clock: Clock;
  private readonly retryMs: number;
  private readonly heartbeatMs: number;
  private readonly livenessMs: number;
  private readonly applicationName: string;
  private client: pg.Client | null = null;
  private closed = false;
  private retryTimer: NodeJS.Timeout | null = null;
  private connecting: Promise<void> | null = null;
  private failures = 0;
  /** Commands queued on the current connection, counted: orders a channel's LISTEN and a heartbeat. */
  private sequence = 0;
  /** Per channel, the number of its LISTEN on the current connection. */
  private listenedAt = new Map<string, number>();
  /** The last answered heartbeat on the current connection: when it was sent, and its number. */
  private confirmed: { at: number; sequence: number } | null = null;
  private heartbeatUsers = 0;
  private heartbeatTimer: NodeJS.Timeout | null = null;
  /** The connection whose heartbeat awaits its answer (one at a time on each). */
  private beating: pg.Client | null = null;

  constructor(
    private readonly connectionString: string,
    options: DatabaseNotificationsOptions = {},
  ) {
    this.clock = options.clock ?? systemClock;
    this.retryMs = options.retryMs ?? 500;
    this.heartbeatMs = options.heartbeatMs ?? 250;
    this.livenessMs = options.livenessMs ?? 1000;
    this.applicationName = options.applicationName ?? `${LIVE_SESSION_PREFIX}${randomUUID()}`;
  }

  /**
   * Calls `handler` for every notification on `channel` (a fixed identifier) from now on, and with `null`
   * on every reset; resolves once listening (or after a failed attempt: it keeps trying in the
   * background). @returns the unsubscribe.
   */
  async subscribe(channel: string, handler: NotificationHandler): Promise<() => void> {
    if (!CHANNEL.test(channel)) throw new Error(`bad channel name ${channel}`);
    const known = this.handlers.get(channel);
    if (known) known.add(handler);
    else {
      this.handlers.set(channel, new Set([handler]));
      const client = this.client;
      if (client) await this.listen(client, channel).catch((err: unknown) => this.lost(client, err));
    }
    if (!this.client) await this.start();
    return () => this.handlers.get(channel)?.delete(handler);
  }

  /** Whether the listening connection is up now. */
  get listening(): boolean {
    return this.client !== null;
  }

  /**
   * The listening connection's application_name while it is up, else null. Jobs claimed by this process
   * carry it (jobs.locked_session): when the process dies its session ends, and the other instances take
   * the jobs over at once (jobs/job.repository.ts, expireLeasesOfEndedSessions).
   */
  get liveSession(): string | null {
    return this.client ? this.applicationName : null;
  }

  /**
   * Keeps the heartbeat running (on the listening connection, once it is up) until the returned release
   * is called: the connection's health is measured only while someone needs it.
   */
  requireHeartbeat(): () => void {
    this.heartbeatUsers += 1;
    if (this.heartbeatUsers === 1 && this.client) void this.beat(this.client);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.heartbeatUsers -= 1;
      if (this.heartbeatUsers === 0 && this.heartbeatTimer) {
        clearTimeout(this.heartbeatTimer);
        this.heartbeatTimer = null;
      }
    };
  }

  /** When the last answered heartbeat on the current connection was sent (-Infinity: none). */
  get confirmedAt(): number {
    return this.confirmed?.at ?? Number.NEGATIVE_INFINITY;
  }

  /**
   * True while notifications can be relied upon (see the file comment): the last heartbeat is at most
   * `livenessMs` old at `now`, and (given a channel) was sent after that channel's LISTEN.
   */
  isHealthy(now: number, channel?: string): boolean {
    const confirmed = this.confirmed;
    if (!confirmed || now - confirmed.at > this.livenessMs) return false;
    if (channel === undefined) return true;
    const listened = this.listenedAt.get(channel);
    return listened !== undefined && listened < confirmed.sequence;
  }

  private listen(client: pg.Client, channel: string): Promise<unknown> {
    if (client === this.client) this.listenedAt.set(channel, ++this.sequence);
    return client.query(`LISTEN ${channel}`);
  }

  private start(): Promise<void> {
    return (this.connecting ??= this.connect().finally(() => (this.connecting = null)));
  }

  private async connect(): Promise<void> {
    if (this.closed || this.client) return;
    const own = new pg.Client({ connectionString: this.connectionString, connectionTimeoutMillis: 10_000, keepAlive: true, application_name: this.applicationName });
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
      // Every channel so far listens before any heartbeat on this connection is sent.
      this.sequence = 0;
      this.listenedAt = new Map([...this.handlers.keys()].map((channel) => [channel, 0]));
      this.confirmed = null;
      this.client = own;
      // Anything notified while not listening (after a reconnect) is looked at now.
      if (this.failures > 0) this.resetAll();
      this.failures = 0;
      if (this.heartbeatUsers > 0) void this.beat(own);
    } catch (err) {
      own.end().catch(() => undefined);
      this.onError(err);
      this.scheduleRetry();
    }
  }

  private async beat(client: pg.Client): Promise<void> {
    if (this.client !== client || this.beating === client || this.heartbeatUsers === 0) return;
    this.beating = client;
    if (this.heartbeatTimer) clearTimeout(this.heartbeatTimer);
    this.heartbeatTimer = null;
    const sentAt = this.clock();
    const sequence = ++this.sequence;
    // A connection whose peer vanished without a reset answers nothing: replace it rather than wait.
    const watchdog = setTimeout(
      () => this.lost(client, new DatabaseUnavailableError('the listening connection left its heartbeat unanswered')),
      Math.max(5000, 5 * this.livenessMs),
    );
    watchdog.unref();
    try {
      await client.query('SELECT 1');
      if (this.client !== client) return;
      this.confirmed = { at: sentAt, sequence };
      if (this.heartbeatUsers === 0 || this.closed) return;
      this.heartbeatTimer = setTimeout(() => void this.beat(client), this.heartbeatMs);
      // The heartbeat alone must not keep a process alive.
      this.heartbeatTimer.unref();
    } catch (err) {
      this.lost(client, err);
    } finally {
      clearTimeout(watchdog);
      if (this.beating === client) this.beating = null;
    }
  }

  private lost(client: pg.Client, err: unknown): void {
    if (this.client !== client) return;
    this.client = null;
    this.confirmed = null;
    this.listenedAt = new Map();
    if (this.heartbeatTimer) clearTimeout(this.heartbeatTimer);
    this.heartbeatTimer = null;
    client.end().catch(() => undefined);
    // Notifications may be missed from now on: whoever keeps what they announce forgets it.
    this.resetAll();
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

  private resetAll(): void {
    for (const channel of this.handlers.keys()) this.dispatch(channel, null);
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
    if (this.heartbeatTimer) clearTimeout(this.heartbeatTimer);
    this.heartbeatTimer = null;
    await this.connecting;
    const client = this.client;
    this.client = null;
    this.confirmed = null;
    await client?.end().catch(() => undefined);
  }
}
