/**
 * RFC 6962 / RFC 9162 Merkle tree hashing and proof verification (SHA-256): leaf SHA-256(0x00 || entry),
 * node SHA-256(0x01 || left || right), the empty tree SHA-256(""). The verification algorithms are
 * RFC 9162 sections 2.1.3.2 (inclusion) and 2.1.4.2 (consistency), step for step; the proof builders are
 * RFC 6962 section 2.1.1/2.1.2 (PATH and PROOF), used over hashes read from tiles.
 *
 * Tree sizes and indexes are JavaScript numbers (exact up to 2^53); shifts are done by division, since
 * the bitwise operators would cut them to 32 bits.
 */
import { equalBytes, sha256, type Bytes } from './bytes.js';

export const HASH_SIZE = 32;
const LEAF_PREFIX = new Uint8Array([0x00]);
const NODE_PREFIX = new Uint8Array([0x01]);

export function leafHash(entry: Uint8Array): Bytes {
  return sha256(LEAF_PREFIX, entry);
}

export function nodeHash(left: Uint8Array, right: Uint8Array): Bytes {
  return sha256(NODE_PREFIX, left, right);
}

export function emptyRoot(): Bytes {
  return sha256(new Uint8Array(0));
}

const isOdd = (n: number): boolean => n % 2 === 1;
const half = (n: number): number => Math.floor(n / 2);

function validSize(n: number): boolean {
  return Number.isSafeInteger(n) && n >= 0;
}

function validHashes(hashes: readonly Uint8Array[]): boolean {
  return hashes.every((h) => h.length === HASH_SIZE);
}

/** The largest power of two smaller than n (n > 1), the split point of RFC 6962's MTH. */
export function splitPoint(n: number): number {
  let k = 1;
  while (k * 2 < n) k *= 2;
  return k;
}

/**
 * RFC 9162 section 2.1.3.2: whether `proof` (the audit path, leaf to root) proves that the leaf whose hash is
 * `leaf` is at `index` in the tree of `size` leaves whose root is `root`.
 */
export async function verifyInclusion(leaf: Uint8Array, index: number, size: number, proof: readonly Uint8Array[], root: Uint8Array): Promise<boolean> {
  if (!validSize(index) || !validSize(size) || index >= size) return false;
  if (leaf.length !== HASH_SIZE || root.length !== HASH_SIZE || !validHashes(proof)) return false;
  let fn = index;
  let sn = size - 1;
  let r: Uint8Array = leaf;
  for (const p of proof) {
    if (sn === 0) return false;
    if (isOdd(fn) || fn === sn) {
      r = nodeHash(p, r);
      if (!isOdd(fn)) {
        while (!isOdd(fn) && fn !== 0) {
          fn = half(fn);
          sn = half(sn);
        }
      }
    } else {
      r = nodeHash(r, p);
    }
    fn = half(fn);
    sn = half(sn);
  }
  return sn === 0 && equalBytes(r, root);
}

/**
 * RFC 9162 section 2.1.4.2: whether `proof` proves that the tree of `size1` leaves with root `root1` is a
 * prefix of the tree of `size2` leaves with root `root2`. Equal sizes need equal roots and an empty proof;
 * from the empty tree, any tree is consistent (empty proof).
 */
export async function verifyConsistency(size1: number, size2: number, proof: readonly Uint8Array[], root1: Uint8Array, root2: Uint8Array): Promise<boolean> {
  if (!validSize(size1) || !validSize(size2) || size1 > size2) return false;
  if (root1.length !== HASH_SIZE || root2.length !== HASH_SIZE || !validHashes(proof)) return false;
  if (size1 === size2) return proof.length === 0 && equalBytes(root1, root2);
  if (size1 === 0) return proof.length === 0;
  if (proof.length === 0) return false;
  const path: Uint8Array[] = [...proof];
  if (isPowerOfTwo(size1)) path.unshift(root1);
  let fn = size1 - 1;
  let sn = size2 - 1;
  while (isOdd(fn)) {
    fn = half(fn);
    sn = half(sn);
  }
  let fr: Uint8Array = path[0]!;
  let sr: Uint8Array = path[0]!;
  for (const c of path.slice(1)) {
    if (sn === 0) return false;
    if (isOdd(fn) || fn === sn) {
      fr = nodeHash(c, fr);
      sr = nodeHash(c, sr);
      if (!isOdd(fn)) {
        while (!isOdd(fn) && fn !== 0) {
          fn = half(fn);
          sn = half(sn);
        }
      }
    } else {
      sr = nodeHash(sr, c);
    }
    fn = half(fn);
    sn = half(sn);
  }
  return sn === 0 && equalBytes(fr, root1) && equalBytes(sr, root2);
}

export function isPowerOfTwo(n: number): boolean {
  if (n < 1) return false;
  while (n % 2 === 0) n /= 2;
  return n === 1;
}

/** MTH(D[start:end]) given a source of hashes; RFC 6962 section 2.1's recursion. */
export type RangeHash = (start: number, end: number) => Promise<Bytes>;

/** RFC 6962 section 2.1.1 PATH(m, D[0:n]): the audit path of leaf `index` in the tree of `size` leaves. */
export async function inclusionProof(index: number, size: number, hashRange: RangeHash): Promise<Bytes[]> {
  if (!validSize(index) || !validSize(size) || index >= size) throw new RangeError(`no leaf ${index} in a tree of ${size}`);
  const path: Bytes[] = [];
  // Walks down from the root, collecting the sibling of each subtree holding the leaf; leaf-first order at the end.
  let start = 0;
  let end = size;
  let m = index;
  while (end - start > 1) {
    const k = splitPoint(end - start);
    if (m < k) {
      path.push(await hashRange(start + k, end));
      end = start + k;
    } else {
      path.push(await hashRange(start, start + k));
      start += k;
      m -= k;
    }
  }
  return path.reverse();
}

/** RFC 6962 section 2.1.2 PROOF(m, D[0:n]): the consistency proof from the tree of `size1` leaves to `size2`. */
export async function consistencyProof(size1: number, size2: number, hashRange: RangeHash): Promise<Bytes[]> {
  if (!validSize(size1) || !validSize(size2) || size1 > size2) throw new RangeError(`no consistency proof from ${size1} to ${size2}`);
  if (size1 === 0 || size1 === size2) return [];
  const proof: Bytes[] = [];
  // SUBPROOF(m, D[start:end], b), unrolled: each step appends after the recursive part, so collect and reverse.
  let start = 0;
  let end = size2;
  let m = size1;
  let whole = true; // RFC 6962's b: the old tree is all of D[0:m] here, whose root the verifier already has
  for (;;) {
    const n = end - start;
    if (m === n) {
      if (!whole) proof.push(await hashRange(start, end));
      break;
    }
    const k = splitPoint(n);
    if (m <= k) {
      proof.push(await hashRange(start + k, end));
      end = start + k;
    } else {
      proof.push(await hashRange(start, start + k));
      start += k;
      m -= k;
      whole = false;
    }
  }
  // The recursion appends after its inner part: the innermost node comes first, the outermost last.
  return proof.reverse();
}

/** MTH of a list of leaf hashes (RFC 6962 section 2.1), bottom-up. */
export function rootOf(leafHashes: readonly Uint8Array[]): Bytes {
  if (leafHashes.length === 0) return emptyRoot();
  let level: Uint8Array[] = [...leafHashes];
  // Pairing left to right and carrying an odd last node up gives the same tree as MTH's largest-power-of-two
  // split, since that split always puts a complete subtree on the left.
  while (level.length > 1) {
    const next: Uint8Array[] = [];
    for (let i = 0; i + 1 < level.length; i += 2) next.push(nodeHash(level[i]!, level[i + 1]!));
    if (level.length % 2 === 1) next.push(level[level.length - 1]!);
    level = next;
  }
  return level[0] as Bytes;
}
