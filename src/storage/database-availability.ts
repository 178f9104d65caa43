/**
 * Whether the database can be reached, as the pool sees it. Connection-level failures (refused,
 * reset, the server shutting down or starting up, a connect timeout) mean "the database is
 * unavailable": callers answer 503 and retry later. Any other database error is a real error.
 *
 * The monitor turns a storm of failing queries into two events: `down` at the first connection-level
 * failure and `up` once a probe query succeeds again (probed in the background while down, so the end
 * of an outage is noticed even without traffic). Whoever subscribes logs each event once.
 */

/** `Retry-After` (seconds) of the 503s answered while the database cannot be reached. */
export const OUTAGE_RETRY_AFTER_SECONDS = 5;

/** The database cannot be reached (at start-up, or a connection-level failure classified as such). */
export class DatabaseUnavailableError extends Error {
  override name = 'DatabaseUnavailableError';
}

/** Socket-level error codes of Node that say the server is not there (or went away). */
const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN']);
/**
 * SQLSTATEs of a server going away or not accepting connections: 57P01 admin shutdown, 57P02 crash
 * shutdown, 57P03 cannot connect now (starting up, shutting down); class 08 is "connection exception".
 */
const SERVER_GONE_STATES = new Set(['57P01', '57P02', '57P03']);
const CONNECTION_EXCEPTION = /^08[0-9A-Z]{3}$/;
/** node-postgres says these in messages only (no code): a dropped socket, a pool connect timeout. */
const DRIVER_MESSAGES = [/^Connection terminated/, /timeout exceeded when trying to connect/, /is not queryable/];

/** True when `err` (or an error it wraps) says the database cannot be reached right now. */
export function isDatabaseUnavailable(err: unknown, depth = 0): boolean {
  if (err === null || typeof err !== 'object' || depth > 4) return false;
  if (err instanceof DatabaseUnavailableError) return true;
  const { code, message, cause, errors } = err as { code?: unknown; message?: unknown; cause?: unknown; errors?: unknown };
  if (typeof code === 'string' && (NETWORK_CODES.has(code) || SERVER_GONE_STATES.has(code) || CONNECTION_EXCEPTION.test(code))) return true;
  if (typeof message === 'string' && DRIVER_MESSAGES.some((re) => re.test(message))) return true;
  // Node reports a refused connection to every address of a host name as an AggregateError.
  if (Array.isArray(errors) && errors.some((e) => isDatabaseUnavailable(e, depth + 1))) return true;
  return isDatabaseUnavailable(cause, depth + 1);
}

/** One line saying why (code and message, never a stack or a connection string's password). */
export function describeFailure(err: unknown): string {
  const e = err as { code?: unknown; message?: unknown; errors?: unknown };
  const first = Array.isArray(e?.errors) ? (e.errors[0] as { message?: unknown } | undefined) : undefined;
  const message = typeof e?.message === 'string' && e.message !== '' ? e.message : typeof first?.message === 'string' ? first.message : String(err);
  return typeof e?.code === 'string' ? `${e.code}: ${message}` : message;
}

export type AvailabilityChange =
  | { state: 'down'; reason: string }
  | { state: 'up'; downtimeMs: number };

export interface DatabaseAvailabilityOptions {
  /** A trivial query; resolves when the database answers. */
  probe: () => Promise<unknown>;
  /** Time between probes while down. Default 1 s. */
  probeIntervalMs?: number;
  now?: () => number;
}

/** Running totals the metrics read. */
export interface DatabaseErrorCounts {
  /** Connection-level failures (each failed query or connect counts). */
  unavailable: number;
  /** Every other error a query raised (constraint violations included). */
  query: number;
}

export class DatabaseAvailability {
  readonly counts: DatabaseErrorCounts = { unavailable: 0, query: 0 };
  private downSince: number | null = null;
  private probeTimer: NodeJS.Timeout | null = null;
  private closed = false;
  private readonly listeners = new Set<(change: AvailabilityChange) => void>();
  private readonly probeIntervalMs: number;
  private readonly now: () => number;

  constructor(private readonly options: DatabaseAvailabilityOptions) {
    this.probeIntervalMs = options.probeIntervalMs ?? 1000;
    this.now = options.now ?? Date.now;
  }

  get isUp(): boolean {
    return this.downSince === null;
  }

  /** Subscribes to down/up changes; returns the unsubscribe function. */
  onChange(listener: (change: AvailabilityChange) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Every error the pool sees goes through here: connection-level ones start an outage. */
  observeError(err: unknown): void {
    if (!isDatabaseUnavailable(err)) {
      this.counts.query += 1;
      return;
    }
    this.counts.unavailable += 1;
    if (this.downSince !== null || this.closed) return;
    this.downSince = this.now();
    this.emit({ state: 'down', reason: describeFailure(err) });
    this.scheduleProbe();
  }

  /** Stops probing (the database is being closed). */
  close(): void {
    this.closed = true;
    if (this.probeTimer) clearTimeout(this.probeTimer);
    this.probeTimer = null;
  }

  /**
   * Only a probe ends an outage, not any successful query: a query that started before the outage may
   * still finish after it began, and must not make the state flap.
   */
  private scheduleProbe(): void {
    if (this.closed) return;
    this.probeTimer = setTimeout(() => {
      this.probeTimer = null;
      this.options.probe().then(
        () => this.markUp(),
        () => this.scheduleProbe(),
      );
    }, this.probeIntervalMs);
    // An outage must not keep a finished process alive.
    this.probeTimer.unref();
  }

  private markUp(): void {
    if (this.downSince === null || this.closed) return;
    const downtimeMs = this.now() - this.downSince;
    this.downSince = null;
    this.emit({ state: 'up', downtimeMs });
  }

  private emit(change: AvailabilityChange): void {
    for (const listener of this.listeners) listener(change);
  }
}
