/**
 * C2SP tlog-tiles paths, relative to the log's prefix: hash tiles `tile/<L>/<N>[.p/<W>]` and entry bundles
 * `tile/entries/<N>[.p/<W>]`, with N in zero-padded 3-digit elements, all but the last prefixed `x`
 * (1234067 → `x001/x234/067`), tiles of height 8 (256 hashes or entries; partial ones 1..255).
 */

/** Tile height: each tile holds 2^8 = 256 hashes (tlog-tiles fixes it). */
export const TILE_HEIGHT = 8;
export const TILE_WIDTH = 256;
/** tlog-tiles levels run from 0 to 63. */
export const MAX_LEVEL = 63;

/** A hash tile (`level` 0..63) or, with `level` 'entries', an entry bundle. */
export interface TileCoordinate {
  level: number | 'entries';
  index: number;
  /** 256 for a full tile, else 1..255 (a partial one). */
  width: number;
}

/** N as tlog-tiles spells it: `x001/x234/067`. */
export function encodeTileIndex(index: number): string {
  if (!Number.isSafeInteger(index) || index < 0) throw new RangeError(`tile index ${index}`);
  let n = index;
  const parts = [String(n % 1000).padStart(3, '0')];
  n = Math.floor(n / 1000);
  while (n > 0) {
    parts.unshift(`x${String(n % 1000).padStart(3, '0')}`);
    n = Math.floor(n / 1000);
  }
  return parts.join('/');
}

/** The path of a tile or bundle under the log's prefix (no leading slash). */
export function tilePath(tile: TileCoordinate): string {
  const base = `tile/${tile.level}/${encodeTileIndex(tile.index)}`;
  return tile.width === TILE_WIDTH ? base : `${base}.p/${tile.width}`;
}

const LEVEL = /^(?:0|[1-9]\d?)$/;
const INNER = /^x\d{3}$/;
const LAST = /^\d{3}$/;
const WIDTH = /^(?:[1-9]\d{0,2})$/;

/**
 * Parses a path under the log's prefix (`tile/...`), or null for anything tlog-tiles would not name
 * exactly: a level above 63 or with leading zeroes, an index element not 3 digits, a redundant leading
 * `x000`, a width outside 1..255 or with leading zeroes. Null is a 404, never an error.
 */
export function parseTilePath(path: string): TileCoordinate | null {
  const parts = path.split('/');
  if (parts.length < 3 || parts[0] !== 'tile') return null;
  const levelPart = parts[1]!;
  let level: number | 'entries';
  if (levelPart === 'entries') level = 'entries';
  else if (LEVEL.test(levelPart) && Number(levelPart) <= MAX_LEVEL) level = Number(levelPart);
  else return null;
  let rest = parts.slice(2);
  let width = TILE_WIDTH;
  if (rest.length >= 2 && rest[rest.length - 2]!.endsWith('.p')) {
    const w = rest[rest.length - 1]!;
    if (!WIDTH.test(w) || Number(w) >= TILE_WIDTH) return null;
    width = Number(w);
    rest = [...rest.slice(0, -2), rest[rest.length - 2]!.slice(0, -2)];
  }
  if (rest.length === 0 || rest.length > 6) return null;
  const last = rest[rest.length - 1]!;
  if (!LAST.test(last)) return null;
  let index = 0;
  for (const element of rest.slice(0, -1)) {
    if (!INNER.test(element)) return null;
    index = index * 1000 + Number(element.slice(1));
  }
  index = index * 1000 + Number(last);
  if (!Number.isSafeInteger(index)) return null;
  // One spelling per index: no leading x000 elements (encodeTileIndex never writes them).
  if (encodeTileIndex(index) !== rest.join('/')) return null;
  return { level, index, width };
}

/**
 * The partial tiles of a tree of `size` leaves (tlog-tiles: the partial tile at level l has
 * floor(size / 256^l) mod 256 hashes; none when that is 0), level 0 first.
 */
export function partialTiles(size: number): Array<{ level: number; index: number; width: number }> {
  const tiles: Array<{ level: number; index: number; width: number }> = [];
  for (let level = 0, count = size; count > 0; level++, count = Math.floor(count / TILE_WIDTH)) {
    const width = count % TILE_WIDTH;
    if (width > 0) tiles.push({ level, index: Math.floor(count / TILE_WIDTH), width });
  }
  return tiles;
}

/** Number of hashes stored at `level` for a tree of `size` leaves: floor(size / 256^level). */
export function hashesAtLevel(size: number, level: number): number {
  return Math.floor(size / TILE_WIDTH ** level);
}
