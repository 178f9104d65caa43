/**
 * The right edge of the tree, as tiles hold it: for each level l (hashes of perfect subtrees of 256^l
 * leaves) the hashes from the start of the level's rightmost tile at some size onwards. That is all the
 * integrator needs to append leaves, and all the hashes any proof for a new leaf, the root, and every tile
 * written after that size are made of (docs/transparency-log.md, "Sequencing"). Everything older is in
 * full tiles that never change.
 */
import { HASH_SIZE, inclusionProof, nodeHash, rootOf, treeRoot, type HashSource } from './merkle.js';
import { TILE_HEIGHT, TILE_WIDTH } from './tile-path.js';

/** Hashes of one level from index `base` on. */
export interface LevelHashes {
  base: number;
  hashes: Buffer[];
}

/** A stored hash at level ≥ 1 that an append completed (the root of a full tile of the level below). */
export interface CompletedHash {
  level: number;
  index: number;
  hash: Buffer;
}

/** Index of the first hash of the rightmost tile at `level` for a tree of `size` leaves. */
export function openTileBase(size: number, level: number): number {
  return Math.floor(size / TILE_WIDTH ** (level + 1)) * TILE_WIDTH;
}

export class TreeView implements HashSource {
  readonly #levels: LevelHashes[];
  /**
   * Hashes of perfect subtrees between the stored levels, once computed: a perfect subtree never changes,
   * and a batch's proofs ask for the same ones again and again (by height, then index).
   */
  readonly #between = new Map<number, Map<number, Buffer>>();

  /** `levels[l]` from openTileBase(size, l) to floor(size / 256^l), as loaded for a tree of some size. */
  constructor(levels: LevelHashes[]) {
    this.#levels = levels.map((l) => ({ base: l.base, hashes: [...l.hashes] }));
    if (this.#levels.length === 0) this.#levels.push({ base: 0, hashes: [] });
  }

  /** Leaves in the tree now. */
  get size(): number {
    const level0 = this.#levels[0]!;
    return level0.base + level0.hashes.length;
  }

  /** Appends a leaf hash; returns the level ≥ 1 hashes it completed (stored so the view can be loaded again). */
  append(leaf: Buffer): CompletedHash[] {
    const completed: CompletedHash[] = [];
    let hash = leaf;
    for (let level = 0; ; level++) {
      // A level that had no hashes starts at index 0.
      const at = (this.#levels[level] ??= { base: 0, hashes: [] });
      at.hashes.push(hash);
      const index = at.base + at.hashes.length - 1;
      if ((index + 1) % TILE_WIDTH !== 0) break;
      // A full tile at this level: its root is a hash of the level above.
      hash = rootOf(at.hashes.slice(at.hashes.length - TILE_WIDTH));
      completed.push({ level: level + 1, index: Math.floor(index / TILE_WIDTH), hash });
    }
    return completed;
  }

  /** The stored hash at `level`, index `index` (must be in the view). */
  hashAt(level: number, index: number): Buffer {
    const at = this.#levels[level];
    const hash = at?.hashes[index - at.base];
    if (!hash) throw new RangeError(`hash ${level}/${index} is not in the view`);
    return hash;
  }

  /** Hashes [from, to) of a level (a tile's content). */
  hashesAt(level: number, from: number, to: number): Buffer[] {
    const hashes: Buffer[] = [];
    for (let i = from; i < to; i++) hashes.push(this.hashAt(level, i));
    return hashes;
  }

  /** A tile's bytes: its hashes concatenated. */
  tileBytes(level: number, index: number, width: number): Buffer {
    return Buffer.concat(this.hashesAt(level, index * TILE_WIDTH, index * TILE_WIDTH + width), width * HASH_SIZE);
  }

  subtree(height: number, index: number): Buffer {
    const level = Math.floor(height / TILE_HEIGHT);
    const rest = height % TILE_HEIGHT;
    if (rest === 0) return this.hashAt(level, index);
    let known = this.#between.get(height);
    if (!known) this.#between.set(height, (known = new Map()));
    let hash = known.get(index);
    if (!hash) known.set(index, (hash = nodeHash(this.subtree(height - 1, 2 * index), this.subtree(height - 1, 2 * index + 1))));
    return hash;
  }

  root(size = this.size): Buffer {
    return treeRoot(this, size);
  }

  proof(index: number, size = this.size): Buffer[] {
    return inclusionProof(this, index, size);
  }
}
