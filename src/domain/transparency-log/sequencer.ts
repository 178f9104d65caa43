/**
 * The log's sequencer: one at a time across every instance (a lease on the state row, taken over at once
 * from a process whose database session is gone, and on PGlite by the one process that owns the data).
 * A round has two steps, each safe to stop at any moment (docs/transparency-log.md, "Sequencing"):
 *
 * 1. integrate (one database transaction): the oldest waiting entries get the next indexes, the tree's new
 *    hashes and root are computed from the open tiles, each entry's audit path is kept, a checkpoint of the
 *    new size is signed and stored. Committed or not at all: the log is never forked, no entry is lost or
 *    numbered twice (the state row is locked, so even two sequencers would only queue up).
 * 2. publish (object storage): every tile and bundle the signed sizes need, derived from the database
 *    alone (the same bytes whoever writes them, however often), then the checkpoint, then
 *    `published_size`. A failure leaves `published_size` behind and the next round writes it all again: a
 *    storage outage delays the log, never corrupts it.
 *
 * Certificate objects show an entry once its checkpoint is published (`checkpoint_size ≤ published_size`),
 * so every checkpoint anyone sees has its tiles.
 */
import type { Logger } from 'pino';
import type { Db } from '../../storage/database.js';
import type { ObjectStorage } from '../../storage/object-storage/object-storage.js';
import { entryBundle } from './entries.js';
import { leafHash } from './merkle.js';
import { checkpointText, signNote, type NoteSigner } from './signed-note.js';
import { partialTiles, TILE_WIDTH, tilePath, type TileCoordinate } from './tile-path.js';
import {
  holdLease,
  lockLogState,
  readCheckpointsAfter,
  readEntryTexts,
  readLogState,
  readOpenTileHashes,
  readWaitingEntries,
  recordIntegration,
  releaseLease,
  hasCheckpoint,
  insertCheckpoint,
  markPublished,
  type LogStateRow,
} from './transparency-log.repository.js';
import { TreeView } from './tree-view.js';

/** Object storage keys of the log: `log/checkpoint`, `log/tile/...` (the URL layout under `/log/`). */
export const LOG_OBJECT_PREFIX = 'log/';
export const CHECKPOINT_KEY = `${LOG_OBJECT_PREFIX}checkpoint`;
export const CHECKPOINT_CONTENT_TYPE = 'text/plain; charset=utf-8';
export const TILE_CONTENT_TYPE = 'application/octet-stream';

export interface SequencerOptions {
  db: Db;
  storage: ObjectStorage;
  /** The log's signer (its name is the origin). */
  signer: () => Promise<NoteSigner>;
  /** This process's name in the lease (unique per process). */
  sequencerId: string;
  /** This process's listening session on PostgreSQL (storage/notifications.ts), or null. */
  session?: () => string | null;
  /** The only process that can reach the database (embedded PGlite): the lease is always its own. */
  exclusive?: boolean;
  /** How long a lease lasts without renewal (default 10 s). */
  leaseMs?: number;
  /** Time between rounds while nothing is waiting (default 200 ms). */
  pollMs?: number;
  /** Most entries one integration takes (default 4096). */
  batchSize?: number;
  /** Writes to object storage at once (default 16). */
  writeConcurrency?: number;
  log?: Pick<Logger, 'info' | 'warn' | 'error'>;
  /** Told after each published checkpoint (tree size). */
  onPublished?: (size: number) => void;
}

export interface RoundResult {
  /** Whether this process holds the lease (else it did nothing). */
  leading: boolean;
  /** Entries integrated. */
  integrated: number;
  /** The size object storage has after the round, when this round published one. */
  published: number | null;
}

export class LogSequencer {
  readonly #options: Required<Omit<SequencerOptions, 'session' | 'log' | 'onPublished'>> & Pick<SequencerOptions, 'session' | 'log' | 'onPublished'>;
  #timer: NodeJS.Timeout | null = null;
  #running: Promise<void> | null = null;
  #stopped = true;
  #failures = 0;
  #wake: (() => void) | null = null;

  constructor(options: SequencerOptions) {
    this.#options = { exclusive: false, leaseMs: 10_000, pollMs: 200, batchSize: 4096, writeConcurrency: 16, ...options };
  }

  /** Runs rounds until stop(): back to back while entries wait, every pollMs otherwise, backing off on failures. */
  start(): void {
    if (!this.#stopped) return;
    this.#stopped = false;
    this.#running = this.#loop();
  }

  /** Stops after the round in flight and gives the lease up, so another instance takes over at once. */
  async stop(): Promise<void> {
    if (this.#stopped) return;
    this.#stopped = true;
    if (this.#timer) clearTimeout(this.#timer);
    this.#wake?.();
    await this.#running;
    await releaseLease(this.#options.db, this.#options.sequencerId).catch(() => undefined);
  }

  /** Wakes the loop now (an entry was just committed by this process). */
  nudge(): void {
    this.#wake?.();
  }

  async #loop(): Promise<void> {
    while (!this.#stopped) {
      let delay = this.#options.pollMs;
      try {
        const result = await this.runRound();
        this.#failures = 0;
        if (result.integrated >= this.#options.batchSize) delay = 0;
      } catch (err) {
        this.#failures++;
        // 0.2, 0.4, 0.8, 1.6, then 2 s between attempts: the log waits, nothing is lost.
        delay = Math.min(2000, this.#options.pollMs * 2 ** Math.min(this.#failures, 4));
        if (this.#failures === 1 || this.#failures % 50 === 0) this.#options.log?.warn({ err, failures: this.#failures }, 'transparency log round failed; retrying');
      }
      if (this.#stopped) break;
      if (delay > 0) {
        await new Promise<void>((resolve) => {
          this.#wake = resolve;
          this.#timer = setTimeout(resolve, delay);
          this.#timer.unref?.();
        });
        this.#wake = null;
      }
    }
  }

  /** One round: integrate one batch (when leading), then publish what is signed but not in object storage. */
  async runRound(): Promise<RoundResult> {
    const integrated = await this.integrate();
    if (integrated === null) return { leading: false, integrated: 0, published: null };
    const published = await this.publish();
    return { leading: true, integrated, published };
  }

  #mayLead(state: LogStateRow): boolean {
    const { sequencerId, exclusive } = this.#options;
    return exclusive || state.sequencer === sequencerId || state.sequencer === null || !state.lease_live || state.session_alive === false;
  }

  /**
   * Step 1, one transaction: the next batch of waiting entries gets its indexes, proofs and a signed
   * checkpoint. Returns the number integrated, or null when another process holds the lease.
   */
  async integrate(): Promise<number | null> {
    const { db, sequencerId, leaseMs, batchSize } = this.#options;
    const signer = await this.#options.signer();
    return db.transaction().execute(async (trx) => {
      const state = await lockLogState(trx);
      if (!this.#mayLead(state)) return null;
      if (state.sequencer !== sequencerId) this.#options.log?.info({ previous: state.sequencer }, 'this process is now the transparency log sequencer');
      // Renewed when a third of it is gone (not on every idle round: one row write per ~3 s, not 5 a second),
      // or at once when this process's session changed (a reconnection) or it was not ours.
      const session = this.#options.session?.() ?? null;
      if (state.sequencer !== sequencerId || state.sequencer_session !== session || (state.lease_left_ms ?? 0) < (leaseMs * 2) / 3) {
        await holdLease(trx, sequencerId, session, leaseMs);
      }
      const size = state.tree_size;
      const waiting = await readWaitingEntries(trx, batchSize);
      if (waiting.length === 0) {
        // The first round of a new log signs the empty tree, so /log/checkpoint exists from the start.
        if (!(await hasCheckpoint(trx, size))) {
          const view = await loadView(trx, size);
          const root = view.root();
          await insertCheckpoint(trx, { size, root, note: signNote(checkpointText(signer.name, size, root), signer) });
        }
        return 0;
      }
      const view = await loadView(trx, size);
      const hashes = [];
      for (const w of waiting) hashes.push(...view.append(leafHash(Buffer.from(w.entry, 'utf8'))));
      const newSize = view.size;
      const root = view.root();
      const entries = waiting.map((w, i) => ({ id: w.id, index: size + i, proof: Buffer.concat(view.proof(size + i)) }));
      const note = signNote(checkpointText(signer.name, newSize, root), signer);
      await recordIntegration(trx, { entries, hashes, checkpoint: { size: newSize, root, note } });
      return waiting.length;
    });
  }

  /**
   * Step 2: writes every full tile and bundle completed since the published size, the partial ones of every
   * checkpoint signed since, then the newest checkpoint. Returns the size now published, or null when
   * nothing was to do (or another process leads).
   */
  async publish(): Promise<number | null> {
    const { db, storage, sequencerId } = this.#options;
    const state = await readLogState(db);
    if (state.sequencer !== sequencerId && !this.#options.exclusive) return null;
    const checkpoints = await readCheckpointsAfter(db, state.published_size);
    if (checkpoints.length === 0) return null;
    const from = state.published_size ?? 0;
    const to = checkpoints[checkpoints.length - 1]!.tree_size;
    const view = await loadView(db, from);
    const base = view.size - (from % TILE_WIDTH);
    const texts = await readEntryTexts(db, base, to);
    const entryBytes = texts.map((t) => Buffer.from(t, 'utf8'));
    for (let i = from - base; i < entryBytes.length; i++) view.append(leafHash(entryBytes[i]!));
    const writes: Array<{ key: string; body: () => Buffer }> = [];
    const add = (tile: TileCoordinate) => {
      const key = `${LOG_OBJECT_PREFIX}${tilePath(tile)}`;
      if (tile.level === 'entries') {
        const start = tile.index * TILE_WIDTH;
        writes.push({ key, body: () => entryBundle(entryBytes.slice(start - base, start - base + tile.width)) });
      } else {
        const level = tile.level;
        writes.push({ key, body: () => view.tileBytes(level, tile.index, tile.width) });
      }
    };
    // Full tiles completed in (from, to], at every level, and their bundles.
    for (let level = 0; Math.floor(to / TILE_WIDTH ** level) >= TILE_WIDTH; level++) {
      const first = Math.floor(Math.floor(from / TILE_WIDTH ** level) / TILE_WIDTH);
      const end = Math.floor(Math.floor(to / TILE_WIDTH ** level) / TILE_WIDTH);
      for (let index = first; index < end; index++) {
        add({ level, index, width: TILE_WIDTH });
        if (level === 0) add({ level: 'entries', index, width: TILE_WIDTH });
      }
    }
    // The partial tiles of every signed size (tlog-tiles: served for each size a checkpoint was produced for).
    for (const { tree_size } of checkpoints) {
      for (const tile of partialTiles(tree_size)) {
        add(tile);
        if (tile.level === 0) add({ level: 'entries', index: tile.index, width: tile.width });
      }
    }
    await runLimited(writes, this.#options.writeConcurrency, (w) => storage.put(w.key, w.body(), TILE_CONTENT_TYPE));
    // The checkpoint last: whoever reads it finds every tile it needs.
    const newest = checkpoints[checkpoints.length - 1]!;
    const current = await readLogState(db);
    if (current.sequencer !== sequencerId && !this.#options.exclusive) return null; // another took over meanwhile: it publishes
    await storage.put(CHECKPOINT_KEY, Buffer.from(newest.note, 'utf8'), CHECKPOINT_CONTENT_TYPE);
    await markPublished(db, newest.tree_size);
    this.#options.onPublished?.(newest.tree_size);
    return newest.tree_size;
  }
}

/** The open tiles of a tree of `size` leaves, level 0 hashed from the entries. */
async function loadView(db: Parameters<typeof readOpenTileHashes>[0], size: number): Promise<TreeView> {
  const levels = await readOpenTileHashes(db, size);
  const level0 = levels[0]!;
  const texts = await readEntryTexts(db, level0.base, size);
  level0.hashes = texts.map((t) => leafHash(Buffer.from(t, 'utf8')));
  return new TreeView(levels);
}

async function runLimited<T>(items: readonly T[], concurrency: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await fn(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, worker));
}
