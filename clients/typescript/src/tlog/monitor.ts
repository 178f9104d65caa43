/**
 * What a monitor does with a tiled log: read and verify the current checkpoint, prove that the log grew
 * from an older checkpoint without rewriting anything (an RFC 6962 consistency proof built from the
 * current tree's tiles and checked with RFC 9162's algorithm), and audit the whole log (every entry bundle
 * and hash tile fetched, every hash recomputed, the root compared with the checkpoint, every entry read).
 */
import { equalBytes, toBase64, type Bytes } from './bytes.js';
import { verifyCheckpoint, type Checkpoint } from './checkpoint.js';
import { parseEntry, type LogEntry } from './entry.js';
import { TransparencyLogError } from './errors.js';
import { consistencyProof, leafHash, rootOf, verifyConsistency } from './merkle.js';
import { parseVerifierKey, type NoteVerifier } from './note.js';
import { hashesAtLevel, LogReader, TILE_WIDTH, TiledTree, tileWidth } from './tiles.js';

/** The log's key: the given key string, or the one the log publishes at `<prefix>/key`. */
export async function logVerifier(reader: LogReader, keyString?: string): Promise<NoteVerifier> {
  return parseVerifierKey(keyString ?? (await reader.key()));
}

/** The log's current checkpoint, its signature verified. */
export async function currentCheckpoint(reader: LogReader, key: NoteVerifier): Promise<Checkpoint> {
  return verifyCheckpoint(await reader.checkpoint(), key);
}

export interface ConsistencyResult {
  old: Checkpoint;
  current: Checkpoint;
  /** The consistency proof (base64 hashes), empty when the sizes are equal or the old tree empty. */
  proof: string[];
}

/**
 * Proves that `old` (a signed note the caller kept) is a prefix of the log's tree at `current` (by default
 * the log's checkpoint now). Throws `TransparencyLogError` ('signature', 'origin', 'consistency') on any
 * inconsistency.
 */
export async function proveConsistency(reader: LogReader, key: NoteVerifier, oldNote: string, currentNote?: string): Promise<ConsistencyResult> {
  const old = await verifyCheckpoint(oldNote, key);
  const current = currentNote === undefined ? await currentCheckpoint(reader, key) : await verifyCheckpoint(currentNote, key);
  if (old.size > current.size) {
    throw new TransparencyLogError('consistency', `the log shrank: the old checkpoint has ${old.size} entries, the current one ${current.size}`);
  }
  const tree = new TiledTree(reader, current.size);
  if (!equalBytes(await tree.root(), current.rootHash)) {
    throw new TransparencyLogError('consistency', `the log's tiles do not hash to the root of its checkpoint of size ${current.size}`);
  }
  const proof = await consistencyProof(old.size, current.size, (start, end) => tree.rangeHash(start, end));
  if (!(await verifyConsistency(old.size, current.size, proof, old.rootHash, current.rootHash))) {
    throw new TransparencyLogError('consistency', `the log was rewritten: its tree of size ${current.size} does not extend the old checkpoint of size ${old.size}`);
  }
  return { old, current, proof: proof.map(toBase64) };
}

export interface AuditReport {
  checkpoint: Checkpoint;
  entries: number;
  issued: number;
  revoked: number;
  tilesFetched: number;
  bundlesFetched: number;
}

export interface AuditOptions {
  /** Each entry as it is read (index 0-based, parsed). */
  onEntry?: (index: number, entry: LogEntry, text: string) => void;
  /** Requests in flight at once (default 8). */
  concurrency?: number;
}

async function inBatches<T>(count: number, concurrency: number, task: (i: number) => Promise<T>): Promise<T[]> {
  const out: T[] = new Array<T>(count);
  let next = 0;
  const workers = Array.from({ length: Math.min(concurrency, count) }, async () => {
    while (next < count) {
      const i = next++;
      out[i] = await task(i);
    }
  });
  await Promise.all(workers);
  return out;
}

/**
 * Audits the whole log at `checkpoint` (verified by the caller): every entry bundle and every hash tile
 * of that size is fetched; leaf hashes are recomputed from the entries and must equal the level-0 tiles,
 * each full tile's subtree hash must equal its hash in the level above, and the root of all entries must
 * be the checkpoint's. Each entry must be a canonical certdesk entry, every revocation must follow an
 * issuance of the same certificate, and no certificate is issued or revoked twice.
 */
export async function auditLog(reader: LogReader, checkpoint: Checkpoint, options: AuditOptions = {}): Promise<AuditReport> {
  const size = checkpoint.size;
  const concurrency = options.concurrency ?? 8;
  const fail = (message: string): never => {
    throw new TransparencyLogError('audit', message);
  };
  let tilesFetched = 0;
  const bundles = Math.ceil(size / TILE_WIDTH);
  const leafTiles = await inBatches(bundles, concurrency, async (t) => {
    const width = tileWidth(size, 0, t);
    const [entries, tile] = await Promise.all([reader.entries(t, width), reader.tile(0, t, width)]);
    tilesFetched++;
    const hashes: Bytes[] = [];
    for (let i = 0; i < width; i++) {
      const hash = leafHash(entries[i]!);
      if (!equalBytes(hash, tile[i]!)) fail(`entry ${t * TILE_WIDTH + i} does not hash to its leaf in tile 0/${t}`);
      hashes.push(hash);
    }
    return { entries, hashes };
  });

  // Every entry, in order: canonical, and the sequence of events possible.
  const states = new Map<string, 'issued' | 'revoked'>();
  let issued = 0;
  let revoked = 0;
  const decoder = new TextDecoder('utf-8', { fatal: true });
  leafTiles.forEach(({ entries }, t) =>
    entries.forEach((bytes, i) => {
      const index = t * TILE_WIDTH + i;
      let text: string;
      try {
        text = decoder.decode(bytes);
      } catch {
        return fail(`entry ${index} is not UTF-8`);
      }
      let entry: LogEntry;
      try {
        entry = parseEntry(text);
      } catch (error) {
        return fail(`entry ${index}: ${(error as Error).message}`);
      }
      const state = states.get(entry.certificate_sha256);
      if (entry.type === 'certificate.issued') {
        if (state) fail(`entry ${index} issues certificate ${entry.certificate_sha256} a second time`);
        states.set(entry.certificate_sha256, 'issued');
        issued++;
      } else {
        if (state !== 'issued') fail(`entry ${index} revokes certificate ${entry.certificate_sha256}, which ${state ? 'was already revoked' : 'was never issued before it'}`);
        states.set(entry.certificate_sha256, 'revoked');
        revoked++;
      }
      options.onEntry?.(index, entry, text);
    }),
  );

  // Level by level: the subtree hash of each full tile is the next level's stored hash.
  let below: Bytes[] = leafTiles.flatMap((t) => t.hashes);
  const leaves = below;
  for (let level = 1; hashesAtLevel(size, level) > 0; level++) {
    const count = hashesAtLevel(size, level);
    const expected: Bytes[] = [];
    for (let i = 0; i < count; i++) expected.push(rootOf(below.slice(i * TILE_WIDTH, (i + 1) * TILE_WIDTH)));
    const tiles = await inBatches(Math.ceil(count / TILE_WIDTH), concurrency, (t) => reader.tile(level, t, tileWidth(size, level, t)));
    tilesFetched += tiles.length;
    tiles.forEach((tile, t) =>
      tile.forEach((hash, i) => {
        if (!equalBytes(hash, expected[t * TILE_WIDTH + i]!)) fail(`tile ${level}/${t} hash ${i} is not the hash of the tile below it`);
      }),
    );
    below = expected;
  }
  if (!equalBytes(rootOf(leaves), checkpoint.rootHash)) fail(`the entries do not hash to the checkpoint's root (size ${size})`);
  return { checkpoint, entries: size, issued, revoked, tilesFetched, bundlesFetched: bundles };
}
