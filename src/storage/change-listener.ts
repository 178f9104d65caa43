/**
 * A PostgreSQL LISTEN connection that tells in-process caches what other sessions changed, and whether it
 * can be trusted right now.
 *
 * - One dedicated connection (not from the pool: a pooled client would be handed to queries and its LISTEN
 *   lost) LISTENs on one channel; every notification's payload goes to `onChange`.
 * - A heartbeat (`SELECT 1` on that connection, every `heartbeatMs`) proves the connection still works:
 *   PostgreSQL sends a listening session its pending notifications before it answers a command, so when
 *   the answer to a heartbeat sent at time T arrives, notifications committed well before T have been
 *   delivered. `confirmedAt` is that T.
 * - `isHealthy(now)` is true only while the last confirmation is at most `livenessMs` old. A cache must not
 *   serve from memory otherwise: a silently dead connection delivers nothing, and only the missing
 *   heartbeat says so.
 * - On any error or end of the connection, `onReset` runs (the cache forgets everything: notifications may
 *   have been missed) and a new connection is opened after `retryMs`; it is trusted again after its LISTEN
 *   and first heartbeat, and `onReset` runs once more then, for changes made while it was down.
 *
 * PGlite has no such connection to offer (its socket clients share one session and the raw protocol does not
 * dispatch notifications), so callers on PGlite do not cache at all.
 */
import pg from 'pg';
import type { Clock } from '../clock.js';

export interface ChangeListenerOptions {
  connectionString: string;
  /** A plain identifier (it is interpolated into LISTEN). */
  channel: string;
  onChange: (payload: string) => void;
  /** Everything cached may be stale: forget it. */
  onReset: () => void;
  clock: Clock;
  /** Time between heartbeats (default 250 ms). */
  heartbeatMs?: number;
  /** How old the last confirmation may be for the listener to count as healthy (default 1000 ms). */
  livenessMs?: number;
  /** Wait before reconnecting after a failure (default 1000 ms). */
  retryMs?: number;
  /** Told about connection failures (logging); the listener recovers by itself. */
  onError?: (err: Error) => void;
}

export class ChangeListener {
  readonly #options: Required<Omit<ChangeListenerOptions, 'onError'>> & Pick<ChangeListenerOptions, 'onError'>;
  #client: pg.Client | null = null;
  #confirmedAt = Number.NEGATIVE_INFINITY;
  #timer: NodeJS.Timeout | null = null;
  #closed = false;
  #heartbeatInFlight = false;

  constructor(options: ChangeListenerOptions) {
    if (!/^[a-z_][a-z0-9_]*$/.test(options.channel)) throw new Error(`channel ${options.channel} is not a plain identifier`);
    this.#options = { heartbeatMs: 250, livenessMs: 1000, retryMs: 1000, ...options };
  }

  /** Opens the connection in the background; the listener is unhealthy until its first heartbeat. */
  start(): void {
    void this.#connect();
  }

  /** True while notifications can be relied upon (see the file comment). */
  isHealthy(now: number): boolean {
    return now - this.#confirmedAt <= this.#options.livenessMs;
  }

  async close(): Promise<void> {
    this.#closed = true;
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
    const client = this.#client;
    this.#client = null;
    this.#confirmedAt = Number.NEGATIVE_INFINITY;
    await client?.end().catch(() => undefined);
  }

  async #connect(): Promise<void> {
    if (this.#closed) return;
    const client = new pg.Client({ connectionString: this.#options.connectionString, keepAlive: true, application_name: 'certdesk-change-listener' });
    this.#client = client;
    client.on('notification', (message) => {
      if (message.channel === this.#options.channel) this.#options.onChange(message.payload ?? '');
    });
    client.on('error', (err) => this.#fail(client, err));
    client.on('end', () => this.#fail(client, new Error('the change listener connection ended')));
    try {
      await client.connect();
      await client.query(`LISTEN ${this.#options.channel}`);
      if (this.#client !== client) return;
      // Changes made while no connection listened were not announced to this process.
      this.#options.onReset();
      await this.#heartbeat(client);
    } catch (err) {
      this.#fail(client, err as Error);
    }
  }

  async #heartbeat(client: pg.Client): Promise<void> {
    if (this.#client !== client || this.#heartbeatInFlight) return;
    this.#heartbeatInFlight = true;
    const sentAt = this.#options.clock();
    // A connection whose peer vanished without a reset answers nothing: replace it rather than wait.
    const watchdog = setTimeout(() => this.#fail(client, new Error('the change listener heartbeat went unanswered')), Math.max(5000, 5 * this.#options.livenessMs));
    watchdog.unref();
    try {
      await client.query('SELECT 1');
      clearTimeout(watchdog);
      if (this.#client !== client) return;
      this.#confirmedAt = sentAt;
      this.#timer = setTimeout(() => void this.#heartbeat(client), this.#options.heartbeatMs);
      // The heartbeat alone must not keep a process alive.
      this.#timer.unref();
    } catch (err) {
      clearTimeout(watchdog);
      this.#fail(client, err as Error);
    } finally {
      this.#heartbeatInFlight = false;
    }
  }

  #fail(client: pg.Client, err: Error): void {
    if (this.#client !== client) return;
    this.#client = null;
    this.#confirmedAt = Number.NEGATIVE_INFINITY;
    this.#options.onReset();
    if (this.#closed) return;
    this.#options.onError?.(err);
    void client.end().catch(() => undefined);
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = setTimeout(() => void this.#connect(), this.#options.retryMs);
    this.#timer.unref();
  }
}
