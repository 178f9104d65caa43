/**
 * Tiles and entry bundles of the transparency log kept in memory once read from object storage. Kept for
 * good (bounded by bytes, least recently used out first): the bytes at a tile path never change (a full
 * tile is immutable; a partial one is named by its width, and its first W hashes never change either).
 * Paths that do not exist are never kept (the tile may be written a moment later). The checkpoint is not a
 * tile and is not kept here: it changes with every batch.
 */
import { LRUCache } from 'lru-cache';

export class LogTileCache {
  readonly #entries: LRUCache<string, Buffer> | null;

  /** `maxBytes` 0 keeps nothing. */
  constructor(maxBytes: number) {
    this.#entries = maxBytes > 0 ? new LRUCache<string, Buffer>({ maxSize: maxBytes, sizeCalculation: (bytes) => bytes.length + 100 }) : null;
  }

  /** The bytes of a tile path (`tile/...`, already validated), or undefined. */
  get(path: string): Buffer | undefined {
    return this.#entries?.get(path);
  }

  set(path: string, bytes: Buffer): void {
    if (bytes.length > 0) this.#entries?.set(path, bytes);
  }

  get size(): number {
    return this.#entries?.size ?? 0;
  }
}

/** Default bound: ~4,000 full tiles or ~1,000 full bundles. */
export const LOG_TILE_CACHE_BYTES = 32 * 1024 * 1024;
