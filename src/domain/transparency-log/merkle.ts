/**
 * RFC 6962 / RFC 9162 Merkle tree hashing (section 2.1): leaf SHA-256(0x00 || entry), node
 * SHA-256(0x01 || left || right), the empty tree SHA-256(""), and the tree of n leaves split at the largest
 * power of two smaller than n. Pure functions over 32-byte hashes; where the hashes come from is the
 * caller's (tree-view.ts reads them from the tiles' levels).
 */
import { createHash } from 'node:crypto';

export const HASH_SIZE = 32;

const LEAF_PREFIX = Buffer.from([0x00]);
const NODE_PREFIX = Buffer.from([0x01]);

/** MTH({}) = SHA-256(""): the root of the empty tree. */
export const EMPTY_ROOT: Buffer = createHash('sha256').digest();

/** MTH({d}) = SHA-256(0x00 || d). */
export function leafHash(entry: Uint8Array): Buffer {
  return createHash('sha256').update(LEAF_PREFIX).update(entry).digest();
}

/** SHA-256(0x01 || left || right). */
export function nodeHash(left: Uint8Array, right: Uint8Array): Buffer {
  return createHash('sha256').update(NODE_PREFIX).update(left).update(right).digest();
}

/** The largest power of two strictly smaller than n (n ≥ 2): RFC 6962's split point k. */
export function splitPoint(n: number): number {
  let k = 1;
  while (k * 2 < n) k *= 2;
  return k;
}

/** MTH of a list of leaf hashes (or of any level's hashes: a tile's root). */
export function rootOf(hashes: readonly Buffer[]): Buffer {
  if (hashes.length === 0) return EMPTY_ROOT;
  return rangeRoot(hashes, 0, hashes.length);
}

function rangeRoot(hashes: readonly Buffer[], start: number, end: number): Buffer {
  const n = end - start;
  if (n === 1) return hashes[start]!;
  const k = splitPoint(n);
  return nodeHash(rangeRoot(hashes, start, start + k), rangeRoot(hashes, start + k, end));
}

/**
 * Where a tree's hashes come from: `subtree(height, index)` is the hash of the perfect subtree of 2^height
 * leaves starting at leaf index × 2^height; `leaf(i)` is subtree(0, i).
 */
export interface HashSource {
  subtree(height: number, index: number): Buffer;
}

function isPowerOfTwo(n: number): boolean {
  return n > 0 && Number.isInteger(Math.log2(n));
}

/** MTH(D[start:end]) from a hash source, start aligned as RFC 6962's recursion leaves it. */
export function rangeHash(source: HashSource, start: number, end: number): Buffer {
  const n = end - start;
  if (n <= 0) throw new RangeError(`empty range ${start}..${end}`);
  if (isPowerOfTwo(n) && start % n === 0) {
    const height = Math.log2(n);
    return source.subtree(height, start / n);
  }
  const k = splitPoint(n);
  return nodeHash(rangeHash(source, start, start + k), rangeHash(source, start + k, end));
}

/** The root hash of the tree of `size` leaves. */
export function treeRoot(source: HashSource, size: number): Buffer {
  return size === 0 ? EMPTY_ROOT : rangeHash(source, 0, size);
}

/**
 * The RFC 6962 audit path (RFC 9162 section 2.1.3.1) of leaf `index` in the tree of `size` leaves, leaf to
 * root: the hashes a verifier combines with the leaf hash to reach the root.
 */
export function inclusionProof(source: HashSource, index: number, size: number): Buffer[] {
  if (!(index >= 0 && index < size)) throw new RangeError(`leaf ${index} is not in a tree of size ${size}`);
  const path: Buffer[] = [];
  collectPath(source, index, 0, size, path);
  return path;
}

function collectPath(source: HashSource, m: number, start: number, end: number, path: Buffer[]): void {
  const n = end - start;
  if (n === 1) return;
  const k = splitPoint(n);
  if (m < start + k) {
    collectPath(source, m, start, start + k, path);
    path.push(rangeHash(source, start + k, end));
  } else {
    collectPath(source, m, start + k, end, path);
    path.push(rangeHash(source, start, start + k));
  }
}

/**
 * Checks an audit path (RFC 9162 section 2.1.3.2): whether `leaf` is at `index` in the tree of `size` whose
 * root is `root`. The service's own check of what it publishes (tests, the sequencer's self-check); third
 * parties use their own.
 */
export function verifyInclusion(leaf: Buffer, index: number, size: number, path: readonly Buffer[], root: Buffer): boolean {
  if (!(index >= 0 && index < size)) return false;
  let fn = index;
  let sn = size - 1;
  let r = leaf;
  for (const p of path) {
    if (sn === 0) return false;
    if (fn % 2 === 1 || fn === sn) {
      r = nodeHash(p, r);
      if (fn % 2 === 0) {
        while (fn % 2 === 0 && fn !== 0) {
          fn = Math.floor(fn / 2);
          sn = Math.floor(sn / 2);
        }
      }
    } else {
      r = nodeHash(r, p);
    }
    fn = Math.floor(fn / 2);
    sn = Math.floor(sn / 2);
  }
  return sn === 0 && r.equals(root);
}
