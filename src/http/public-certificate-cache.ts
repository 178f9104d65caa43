/**
 * The public certificate answers (`GET /v1/certificates/{id}` and `/verify/{id}/badge.svg`), rendered once
 * and kept in memory: the hottest public path (badges are embedded on customers' pages), and one row that
 * changes at most once in its life (a revocation).
 *
 * How stale an answer may be (docs/certificates.md, "Caching"):
 * - Every change to a certificate row is announced by PostgreSQL (`certdesk_certificate_changed`, the
 *   trigger of migration 0011) whoever made it: any instance, the CLI, plain SQL. Each process LISTENs
 *   on its one listening connection (src/storage/notifications.ts, owned by the database handle) and
 *   drops the certificate at once: a revocation reaches every instance within the notification's
 *   delivery, milliseconds.
 * - Memory is used only while that listener is healthy (a heartbeat answered within the last second, sent
 *   after the channel's LISTEN). When it is not, every request reads the database; when its connection
 *   breaks, the cache is emptied (notifications may have been missed), and again once it listens anew. Stale answers therefore cannot outlive
 *   a broken listener by more than its liveness bound (1 s).
 * - An answer is never served more than `ttlMs` after it was read, whatever happened (the safety net for
 *   what no notification covers, e.g. a restore of the table with triggers disabled).
 * - A read that started before an invalidation is not stored (the invalidation epoch moved): its row may
 *   predate the change whose notification just arrived.
 * - Unknown ids are not cached: they cost one primary-key read each, and caching them would let anyone
 *   evict real certificates by asking for random ids (and would need inserts announced too).
 * - Answers still waiting for the transparency log (`transparency_log` null, or a revocation not yet in
 *   it) are not kept either: sequencing changes no certificate row, so no notification would drop them.
 *   Such an answer is read anew on every request until the log has it (at most ~2 s after the decision,
 *   docs/transparency-log.md), so a cached answer never hides the log's data: the bound is 0.
 * - Bounded by bytes (the rendered JSON and SVG), least recently used first out; once full, only some
 *   read answers take a place (FULL_ADMISSION_RATE), so what is asked for often stays.
 * With no listener (PGlite, or a size of 0) nothing is kept: every request reads the row.
 */
import { LRUCache } from 'lru-cache';
import { systemClock, type Clock } from '../clock.js';
import type { PublicCertificateT, TransparencyLogT } from '../contract/certificate-schemas.js';
import { findPublicCertificates, isCertificateId, toPublicCertificateObject, type CertificateRow } from '../domain/certificates/index.js';
import type { DatabaseHandle } from '../storage/database.js';
import { renderBadge } from '../domain/certificates/certificate-badge.js';

/** The channel of migration 0011's trigger: the payload is the changed certificate's id. */
export const CERTIFICATE_CHANGES_CHANNEL = 'certdesk_certificate_changed';

/** Everything a public answer needs, rendered. */
export interface PublicCertificateAnswer {
  status: 'valid' | 'revoked';
  /**
   * The body of `GET /v1/certificates/{id}` (JSON, UTF-8). Kept as bytes: each answer writes them as they
   * are (no encoding per request), and they live outside the JavaScript heap the garbage collector walks.
   */
  json: Buffer;
  /** Its entity tag: changes when (and only when) the certificate is revoked. */
  etag: string;
  /** The badge (SVG, UTF-8) and its entity tag. */
  badge: Buffer;
  badgeEtag: string;
}

/** What tells the cache whether its memory may be used now (the LISTEN connection's health). */
export interface ChangeFeedHealth {
  isHealthy(now: number): boolean;
}

export interface PublicCertificateCacheOptions {
  /** Certificates by (well-formed, lower-case) ids, from the database, in one read: keyed by id. */
  loadMany: (certificateIds: string[]) => Promise<Map<string, CertificateRow>>;
  clock: Clock;
  /** Longest time an answer is served after it was read. */
  ttlMs: number;
  /** Bound of the rendered answers kept (bytes); 0 keeps nothing. */
  maxBytes: number;
  /** null: nothing is kept (no change feed, e.g. PGlite). */
  feed: ChangeFeedHealth | null;
  /**
   * Whether a read answer takes the place of the least recently used one once the bound is reached
   * (default: at random, FULL_ADMISSION_RATE of the time). Tests decide it.
   */
  admitWhenFull?: () => boolean;
}

/**
 * The entity tag of a certificate's public representation: it changes when it is revoked (once), when
 * its issuance or revocation enters the transparency log (the log's indexes are part of the tag), and when
 * its credentialed file is made (`content_credentials`, once).
 */
export function certificateEtag(row: Pick<CertificateRow, 'certificate_id' | 'revoked_at' | 'content_credentials'>, log: TransparencyLogT | null = null): string {
  const logged = log ? `-log${log.issued.index}${log.revoked ? `-${log.revoked.index}` : ''}` : '';
  const cc = row.content_credentials === 'pending' ? '' : `-cc${row.content_credentials[0]}`;
  return row.revoked_at ? `"${row.certificate_id}-revoked-${row.revoked_at.getTime()}${logged}${cc}"` : `"${row.certificate_id}-valid${logged}${cc}"`;
}

/**
 * A certificate's public answers, each rendered on its first use and then kept: a badge miss renders no
 * JSON, an API miss no badge (most misses are answered once and never kept: FULL_ADMISSION_RATE). Of the
 * row, only the public fields are kept until the JSON is rendered, then only what the badge needs.
 */
export class RenderedCertificate implements PublicCertificateAnswer {
  readonly status: 'valid' | 'revoked';
  /** The transparency log does not have all of it yet (its issuance, or its revocation): never kept. */
  readonly logPending: boolean;
  readonly etag: string;
  readonly badgeEtag: string;
  /** Told when a representation was rendered (the memory it holds grew): the cache that keeps it. */
  onGrow: (() => void) | null = null;
  #fields: PublicCertificateT | null;
  #json: Buffer | null = null;
  readonly #verifyUrl: string;
  readonly #assetName: string;
  #badge: Buffer | null = null;
  /** What the kept row fields take (charged until the JSON is rendered and they are dropped). */
  readonly #fieldsBytes: number;
  /** What never changes: the strings kept for the badge, the entity tags and the objects themselves. */
  readonly #fixedBytes: number;

  constructor(row: CertificateRow) {
    const fields = toPublicCertificateObject(row);
    this.#fields = fields;
    this.status = fields.status;
    const log = fields.transparency_log;
    this.logPending = log === null || (fields.status === 'revoked' && log.revoked === null);
    this.etag = certificateEtag(row, log);
    this.badgeEtag = this.etag.replace(/"$/, '-badge"');
    this.#verifyUrl = row.verify_url;
    this.#assetName = row.asset_name;
    this.#fieldsBytes =
      textBytes(fields.certificate_id) + textBytes(fields.issued_at) + textBytes(fields.revoked_at) + textBytes(fields.revocation_reason) + textBytes(fields.asset_sha256) + textBytes(fields.jws) + textBytes(row.transparency_log) + 100;
    this.#fixedBytes = textBytes(this.#verifyUrl) + textBytes(this.#assetName) + textBytes(this.etag) + textBytes(this.badgeEtag) + 500;
  }

  /**
   * What it holds now, estimated (the cache's byte bound): the rendered bytes as they are; a kept string
   * at its length (2 bytes a character when it holds one outside Latin-1, as V8 keeps it) plus 16 bytes of
   * header; ~500 bytes of objects (this one, its buffers' handles, their backing stores' bookkeeping).
   * Measured on the benchmark's certificates (heap and external memory): 2.4 kB an entry with both
   * representations rendered, 1.6 kB with the JSON only; this estimate plus ENTRY_OVERHEAD_BYTES says
   * 2.7 and 2.1 kB (the 2.8 kB charged for every entry before, whatever it held).
   */
  get bytes(): number {
    return (this.#fields ? this.#fieldsBytes : 0) + (this.#json?.length ?? 0) + (this.#badge?.length ?? 0) + this.#fixedBytes;
  }

  /** The body of `GET /v1/certificates/{id}`. */
  get json(): Buffer {
    if (!this.#json) {
      this.#json = this.#bytesOf(JSON.stringify(this.#fields));
      this.#fields = null;
      this.onGrow?.();
    }
    return this.#json;
  }

  get badge(): Buffer {
    if (!this.#badge) {
      this.#badge = this.#bytesOf(renderBadge({ status: this.status, verifyUrl: this.#verifyUrl, assetName: this.#assetName }));
      this.onGrow?.();
    }
    return this.#badge;
  }

  /**
   * A kept answer's bytes in memory of their own (a cache keeping it sets onGrow before anything is
   * rendered). Most answers read while the cache is full are sent once and dropped (FULL_ADMISSION_RATE):
   * theirs come from Node's shared pool, which costs less.
   */
  #bytesOf(text: string): Buffer {
    return this.onGrow ? ownBytes(text) : Buffer.from(text, 'utf8');
  }
}

/** What V8 keeps for a string: a byte a character while all are Latin-1, else two; 16 bytes of header. */
function textBytes(value: string | null): number {
  if (value === null) return 0;
  return (/[^\u0000-\u00ff]/.test(value) ? 2 : 1) * value.length + 16;
}

/**
 * A text's UTF-8 bytes in memory of their own: Buffer.from would cut small ones from a shared 8 kB pool,
 * which one kept answer would hold whole after the others were evicted.
 */
function ownBytes(text: string): Buffer {
  const bytes = Buffer.allocUnsafeSlow(Buffer.byteLength(text, 'utf8'));
  bytes.write(text, 'utf8');
  return bytes;
}

export function renderPublicCertificate(row: CertificateRow): RenderedCertificate {
  return new RenderedCertificate(row);
}

interface Entry {
  answer: RenderedCertificate;
  loadedAt: number;
}

/** Fixed cost of an entry besides its strings (key, object headers, list links), for the byte bound. */
const ENTRY_OVERHEAD_BYTES = 200;

/** What an entry holding this answer is charged against the byte bound. */
function entryBytes(answer: RenderedCertificate): number {
  return answer.bytes + ENTRY_OVERHEAD_BYTES;
}
/** Most ids read in one statement. */
const MAX_BATCH = 128;
/**
 * Statements reading certificates at once per process (the rest wait and join the next). One: a statement
 * costs the process ~120 µs of CPU whatever it reads (the driver, the round trip's system calls), a row
 * ~4 µs more (measured on the benchmark's database), so the misses that arrive while one read runs are
 * cheapest read together by the next; a miss waits at most for the read in flight and its own.
 */
const MAX_READS_IN_FLIGHT = 1;
/**
 * Share of the answers read while the cache is full that are kept, evicting the least recently used.
 * Keeping every one made a cache smaller than the set of certificates asked for slower than none
 * (docs/benchmarks.md, "Public certificate lookups": with uniformly random ids over 100,000 certificates
 * and room for ~23,000, 77% of requests miss, and each kept-then-evicted answer was work for the LRU list
 * and for the garbage collector's old generation). A certificate asked for often (a badge on a busy page)
 * is still kept after about 1/rate requests, and then stays while it is asked for; a full cache of
 * uniformly requested ones keeps serving the same share from memory with 1/rate of the churn.
 */
export const FULL_ADMISSION_RATE = 1 / 32;

/** The default admission of a full cache: true FULL_ADMISSION_RATE of the time. */
export function admitAtRandom(random: () => number = Math.random): () => boolean {
  return () => random() < FULL_ADMISSION_RATE;
}

interface Waiter {
  resolve: (row: CertificateRow | undefined) => void;
  reject: (err: unknown) => void;
}

export class PublicCertificateCache {
  readonly #options: PublicCertificateCacheOptions;
  readonly #entries: LRUCache<string, Entry> | null;
  /** Moves on every invalidation: a read that saw it move does not store its (maybe older) row. */
  #epoch = 0;
  /** Reads asked for since the last one was sent, by id (concurrent requests for one id share it). */
  #batch: Map<string, Waiter[]> | null = null;
  /** Statements of #read running now. */
  #readsInFlight = 0;

  readonly #admitWhenFull: () => boolean;

  constructor(options: PublicCertificateCacheOptions) {
    this.#options = options;
    this.#admitWhenFull = options.admitWhenFull ?? admitAtRandom();
    this.#entries =
      options.feed && options.maxBytes > 0
        ? new LRUCache<string, Entry>({
            maxSize: options.maxBytes,
            sizeCalculation: ({ answer }) => entryBytes(answer),
          })
        : null;
  }

  /** The rendered answers of a certificate, or null when the id is unknown or malformed (never cached). */
  async get(certificateId: string): Promise<PublicCertificateAnswer | null> {
    if (!isCertificateId(certificateId)) return null;
    const key = certificateId.toLowerCase();
    const now = this.#options.clock();
    const usable = this.#usable(now);
    const kept = usable ? this.#kept(key, now) : null;
    if (kept) return kept;
    const epoch = this.#epoch;
    const row = await this.#read(key);
    if (!row) return null;
    const answer = renderPublicCertificate(row);
    if (usable && !answer.logPending && epoch === this.#epoch && this.#usable(this.#options.clock()) && this.#admits(answer)) this.#keep(key, answer, now);
    return answer;
  }

  /**
   * Keeps an answer, charged for what it holds; when it renders another representation later, its entry
   * is charged again (a new entry object: the LRU recomputes a size only when the value changes), which
   * may push the least recently used ones out.
   */
  #keep(key: string, answer: RenderedCertificate, loadedAt: number): void {
    const entries = this.#entries!;
    entries.set(key, { answer, loadedAt });
    answer.onGrow = () => {
      const kept = entries.peek(key);
      if (kept?.answer === answer) entries.set(key, { answer, loadedAt: kept.loadedAt });
    };
  }

  /** Whether a read answer is kept: always while there is room, else only sometimes (FULL_ADMISSION_RATE). */
  #admits(answer: RenderedCertificate): boolean {
    const entries = this.#entries!;
    return entries.calculatedSize + entryBytes(answer) <= entries.maxSize || this.#admitWhenFull();
  }

  /**
   * The kept answers of a certificate when they may be served now without reading the database (kept,
   * younger than the TTL, the change feed healthy), else null: the fast path's question
   * (public-certificate-fast-path.ts), which reads with `get` otherwise.
   */
  peek(certificateId: string): PublicCertificateAnswer | null {
    if (!isCertificateId(certificateId)) return null;
    const now = this.#options.clock();
    return this.#usable(now) ? this.#kept(certificateId.toLowerCase(), now) : null;
  }

  /** The kept answer of a (lower-case) id while younger than the TTL; the caller checked #usable. */
  #kept(key: string, now: number): PublicCertificateAnswer | null {
    const entry = this.#entries?.get(key);
    return entry && now - entry.loadedAt <= this.#options.ttlMs ? entry.answer : null;
  }

  /** A certificate changed (a notification): its answers are read again on the next request. */
  invalidate(certificateId: string): void {
    this.#epoch++;
    this.#entries?.delete(certificateId.toLowerCase());
  }

  /** Anything may have changed (the change feed was interrupted). */
  clear(): void {
    this.#epoch++;
    this.#entries?.clear();
  }

  /** Answers kept now (tests, metrics). */
  get size(): number {
    return this.#entries?.size ?? 0;
  }

  /**
   * Reads one certificate, together with every other read asked for in the same turn of the event loop,
   * or while the process's reads already in flight run: under load, many requests share one statement and
   * one round trip (the driver's and the kernel's cost per query dominate the profile of this path), and
   * it is still a fresh read of the row for each of them. At most MAX_READS_IN_FLIGHT statements run at
   * once, so a burst of misses cannot take the whole pool or queue for it; the next read takes everything
   * that came meanwhile (up to MAX_BATCH ids a statement).
   */
  #read(key: string): Promise<CertificateRow | undefined> {
    return new Promise((resolve, reject) => {
      if (!this.#batch) {
        this.#batch = new Map();
        setImmediate(() => this.#flush());
      }
      const waiters = this.#batch.get(key);
      if (waiters) waiters.push({ resolve, reject });
      else this.#batch.set(key, [{ resolve, reject }]);
      if (this.#batch.size >= MAX_BATCH) this.#flush();
    });
  }

  #flush(): void {
    const waiting = this.#batch;
    if (!waiting || this.#readsInFlight >= MAX_READS_IN_FLIGHT) return; // the next read to finish flushes
    let batch = waiting;
    if (waiting.size > MAX_BATCH) {
      batch = new Map([...waiting].slice(0, MAX_BATCH));
      for (const id of batch.keys()) waiting.delete(id);
    } else this.#batch = null;
    this.#readsInFlight++;
    this.#options
      .loadMany([...batch.keys()])
      .then(
        (rows) => {
          for (const [id, waiters] of batch) for (const w of waiters) w.resolve(rows.get(id));
        },
        (err: unknown) => {
          for (const waiters of batch.values()) for (const w of waiters) w.reject(err);
        },
      )
      .finally(() => {
        this.#readsInFlight--;
        this.#flush();
      });
  }

  #usable(now: number): boolean {
    if (!this.#entries || !this.#options.feed) return false;
    // Not cleared when unhealthy: a late heartbeat on a live connection missed nothing (notifications
    // still arrive, in order, and invalidate); a broken connection clears everything through the
    // listener's reset before it is trusted again.
    return this.#options.feed.isHealthy(now);
  }
}

export interface OpenPublicCertificateCacheInput {
  /** On PostgreSQL, the cache listens through the handle's notifications (its one listening connection). */
  database: Pick<DatabaseHandle, 'db' | 'kind' | 'notifications'>;
  maxBytes: number;
  ttlMs: number;
  /** The entries' TTL. The listener's health is measured on the notifications' own clock. */
  clock?: Clock;
}

/**
 * The composition root's cache: on PostgreSQL it subscribes to certificate changes through the database
 * handle's notifications (on first use) and keeps their heartbeat running; on PGlite nothing is kept.
 */
export function openPublicCertificateCache(input: OpenPublicCertificateCacheInput): { cache: PublicCertificateCache; close: () => Promise<void> } {
  const clock = input.clock ?? systemClock;
  const db = input.database.db;
  const loadMany = (ids: string[]) => findPublicCertificates(db, ids);
  const notifications = input.database.kind === 'postgres' ? (input.database.notifications ?? null) : null;
  if (!notifications || input.maxBytes <= 0) {
    return { cache: new PublicCertificateCache({ loadMany, clock, ttlMs: input.ttlMs, maxBytes: 0, feed: null }), close: async () => undefined };
  }
  let started = false;
  let closed = false;
  let releaseHeartbeat: (() => void) | null = null;
  let unsubscribe: (() => void) | null = null;
  const feed: ChangeFeedHealth = {
    isHealthy() {
      // Started by the first public lookup, so CLI commands that build the services never listen.
      if (!started && !closed) {
        started = true;
        releaseHeartbeat = notifications.requireHeartbeat();
        // null: a reset (the connection was lost, or listens again): anything may have changed meanwhile.
        void notifications
          .subscribe(CERTIFICATE_CHANGES_CHANNEL, (id) => (id === null ? cache.clear() : cache.invalidate(id)))
          .then((stop) => {
            if (closed) stop();
            else unsubscribe = stop;
          }, (err: unknown) => notifications.onError(err));
      }
      // The heartbeat's own clock (the cache's may be a test's), and only once this channel listens.
      return notifications.isHealthy(notifications.clock(), CERTIFICATE_CHANGES_CHANNEL);
    },
  };
  const cache: PublicCertificateCache = new PublicCertificateCache({ loadMany, clock, ttlMs: input.ttlMs, maxBytes: input.maxBytes, feed });
  return {
    cache,
    close: async () => {
      closed = true;
      (unsubscribe as (() => void) | null)?.();
      (releaseHeartbeat as (() => void) | null)?.();
    },
  };
}
