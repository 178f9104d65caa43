/**
 * C2SP tlog-tiles read over fetch: paths (`tile/<L>/<N>[.p/<W>]`, `tile/entries/<N>[.p/<W>]`, N in
 * zero-padded 3-digit groups, all but the last prefixed with `x`), entry bundles (big-endian uint16 length
 * then the entry), and the hash of any range of a tree of a given size computed from its tiles (height 8).
 * Only the tiles a verified checkpoint's size requires are fetched, as the spec asks.
 */
import type { Bytes } from './bytes.js';
import { TransparencyLogError } from './errors.js';
import { HASH_SIZE, isPowerOfTwo, nodeHash, rootOf, splitPoint } from './merkle.js';

export const TILE_HEIGHT = 8;
export const TILE_WIDTH = 256;

/** `x001/x234/067` for 1234067. */
export function encodeTileIndex(index: number): string {
  if (!Number.isSafeInteger(index) || index < 0) throw new RangeError(`invalid tile index ${index}`);
  const groups: string[] = [];
  let n = index;
  do {
    groups.unshift(String(n % 1000).padStart(3, '0'));
    n = Math.floor(n / 1000);
  } while (n > 0);
  return groups.map((g, i) => (i < groups.length - 1 ? `x${g}` : g)).join('/');
}

function widthSuffix(width: number): string {
  return width === TILE_WIDTH ? '' : `.p/${width}`;
}

/** The path (under the log prefix) of hash tile `index` at `level`, `width` hashes wide (256: full). */
export function tilePath(level: number, index: number, width: number = TILE_WIDTH): string {
  return `tile/${level}/${encodeTileIndex(index)}${widthSuffix(width)}`;
}

/** The path (under the log prefix) of entry bundle `index`, `width` entries (256: full). */
export function entryBundlePath(index: number, width: number = TILE_WIDTH): string {
  return `tile/entries/${encodeTileIndex(index)}${widthSuffix(width)}`;
}

/** Splits an entry bundle into its entries; throws unless it is exactly well-formed. */
export function parseEntryBundle(data: Uint8Array): Bytes[] {
  const entries: Bytes[] = [];
  let at = 0;
  while (at < data.length) {
    if (at + 2 > data.length) throw new TransparencyLogError('audit', 'an entry bundle ends inside a length prefix');
    const length = (data[at]! << 8) | data[at + 1]!;
    at += 2;
    if (at + length > data.length) throw new TransparencyLogError('audit', 'an entry bundle ends inside an entry');
    entries.push(data.slice(at, at + length));
    at += length;
  }
  return entries;
}

/** Reads a log's public files under its prefix (`https://host/log`), with fetch. */
export class LogReader {
  readonly prefix: string;
  private readonly fetchImpl: typeof fetch;

  constructor(prefix: string, fetchImpl?: typeof fetch) {
    this.prefix = prefix.replace(/\/+$/, '');
    this.fetchImpl = fetchImpl ?? ((input, init) => globalThis.fetch(input, init));
  }

  /** The log prefix of a service's base URL. */
  static ofService(baseUrl: string, fetchImpl?: typeof fetch): LogReader {
    return new LogReader(`${baseUrl.replace(/\/+$/, '')}/log`, fetchImpl);
  }

  private async get(path: string): Promise<globalThis.Response | null> {
    let response: globalThis.Response;
    try {
      // no-cache: the checkpoint and partial tiles change; full tiles revalidate cheaply (immutable).
      response = await this.fetchImpl(`${this.prefix}/${path}`, { cache: 'no-cache', credentials: 'omit' });
    } catch (error) {
      throw new TransparencyLogError('unavailable', `could not read ${this.prefix}/${path}: ${(error as Error).message}`);
    }
    if (response.status === 404) return null;
    if (!response.ok) throw new TransparencyLogError('unavailable', `${this.prefix}/${path} answered ${response.status}`);
    return response;
  }

  private async required(path: string): Promise<globalThis.Response> {
    const response = await this.get(path);
    if (!response) throw new TransparencyLogError('unavailable', `${this.prefix}/${path} answered 404`);
    return response;
  }

  async key(): Promise<string> {
    return (await (await this.required('key')).text()).trim();
  }

  /** The current checkpoint's signed note, unverified. */
  async checkpoint(): Promise<string> {
    return (await this.required('checkpoint')).text();
  }

  /** A file's bytes; a partial one missing falls back to the full one's first `width` items (the spec allows it). */
  private async tileBytes(partialPath: string, fullPath: string, width: number): Promise<Uint8Array> {
    const response = await this.get(width === TILE_WIDTH ? fullPath : partialPath);
    if (response) return new Uint8Array(await response.arrayBuffer());
    if (width === TILE_WIDTH) throw new TransparencyLogError('unavailable', `${this.prefix}/${fullPath} answered 404`);
    return new Uint8Array(await (await this.required(fullPath)).arrayBuffer());
  }

  /** The `width` hashes of hash tile `index` at `level`. */
  async tile(level: number, index: number, width: number): Promise<Bytes[]> {
    const data = await this.tileBytes(tilePath(level, index, width), tilePath(level, index), width);
    // Exactly `width` hashes, or a whole tile when the partial one was gone and the full one was read instead.
    if (data.length !== width * HASH_SIZE && data.length !== TILE_WIDTH * HASH_SIZE) {
      throw new TransparencyLogError('audit', `tile ${tilePath(level, index, width)} is ${data.length} bytes, not ${width * HASH_SIZE}`);
    }
    const hashes: Bytes[] = [];
    for (let i = 0; i < width; i++) hashes.push(data.slice(i * HASH_SIZE, (i + 1) * HASH_SIZE));
    return hashes;
  }

  /** The `width` entries of entry bundle `index`. */
  async entries(index: number, width: number): Promise<Bytes[]> {
    const entries = parseEntryBundle(await this.tileBytes(entryBundlePath(index, width), entryBundlePath(index), width));
    if (entries.length !== width && !(entries.length === TILE_WIDTH && width < TILE_WIDTH)) {
      throw new TransparencyLogError('audit', `entry bundle ${entryBundlePath(index, width)} holds ${entries.length} entries, not ${width}`);
    }
    return entries.slice(0, width);
  }
}

/** How many hashes tile level `level` holds for a tree of `size` leaves: floor(size / 256^level). */
export function hashesAtLevel(size: number, level: number): number {
  return Math.floor(size / TILE_WIDTH ** level);
}

/** The width of tile `index` at `level` for a tree of `size` leaves (256 for a full tile). */
export function tileWidth(size: number, level: number, index: number): number {
  return Math.min(TILE_WIDTH, hashesAtLevel(size, level) - index * TILE_WIDTH);
}

/**
 * The Merkle tree of one size (a verified checkpoint's), its hashes read from tiles on demand and kept.
 * `rangeHash(start, end)` is MTH(D[start:end]) for any range within the tree.
 */
export class TiledTree {
  private readonly tiles = new Map<string, Promise<Bytes[]>>();

  constructor(
    private readonly reader: LogReader,
    readonly size: number,
  ) {}

  private tile(level: number, index: number): Promise<Bytes[]> {
    const width = tileWidth(this.size, level, index);
    if (width <= 0) throw new RangeError(`tile ${level}/${index} is beyond a tree of ${this.size}`);
    const key = `${level}/${index}`;
    let tile = this.tiles.get(key);
    if (!tile) {
      tile = this.reader.tile(level, index, width);
      this.tiles.set(key, tile);
      tile.catch(() => this.tiles.delete(key));
    }
    return tile;
  }

  /** The hash of the complete subtree of 256^level leaves number `index` (a hash stored in a tile). */
  private async stored(level: number, index: number): Promise<Bytes> {
    const tile = await this.tile(level, Math.floor(index / TILE_WIDTH));
    return tile[index % TILE_WIDTH]!;
  }

  /** The hash of the complete, aligned subtree of `size` (a power of two) leaves starting at `start`. */
  private async perfect(start: number, size: number): Promise<Bytes> {
    let height = 0;
    while (2 ** height < size) height++;
    const level = Math.floor(height / TILE_HEIGHT);
    const span = 2 ** (height - level * TILE_HEIGHT); // hashes of that tile level under this subtree
    const first = start / TILE_WIDTH ** level;
    const hashes: Bytes[] = [];
    for (let i = 0; i < span; i++) hashes.push(await this.stored(level, first + i));
    return rootOf(hashes);
  }

  async rangeHash(start: number, end: number): Promise<Bytes> {
    if (!(0 <= start && start < end && end <= this.size)) throw new RangeError(`range [${start}, ${end}) is not in a tree of ${this.size}`);
    const n = end - start;
    if (isPowerOfTwo(n) && start % n === 0) return this.perfect(start, n);
    const k = splitPoint(n);
    return nodeHash(await this.rangeHash(start, start + k), await this.rangeHash(start + k, end));
  }

  /** The root hash of the whole tree (the empty tree's for size 0). */
  async root(): Promise<Bytes> {
    return this.size === 0 ? rootOf([]) : this.rangeHash(0, this.size);
  }
}

