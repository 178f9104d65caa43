/**
 * An audit of the whole log from the database and the object storage (the project's own code; the
 * independent verifier is elsewhere): entries numbered 0..n-1 exactly once each, every signed checkpoint's
 * root recomputed from the entries (so no two checkpoints can disagree: no fork), every stored proof
 * leading to its checkpoint, and, up to the published size, every tile and bundle in storage equal to the
 * recomputed bytes, with the checkpoint object the newest published one.
 *
 * @example
 * const report = await auditLog(db, storage, verifierKey);
 * assert.equal(report.entries, 1000);
 */
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { entryBundle, leafHash, openCheckpoint, rootOf, tilePath, verifyInclusion } from '../../src/domain/transparency-log/index.js';
import type { Executor } from '../../src/storage/database.js';
import type { ObjectStorage } from '../../src/storage/object-storage/index.js';

export interface AuditReport {
  entries: number;
  checkpoints: number;
  publishedSize: number | null;
  /** Roots by signed size, for comparing with checkpoints seen from outside. */
  roots: Map<number, Buffer>;
  leaves: Buffer[];
}

async function bytesOf(storage: ObjectStorage, key: string): Promise<Buffer | null> {
  const object = await storage.get(key);
  if (!object) return null;
  const chunks: Buffer[] = [];
  for await (const chunk of object.body) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** Root of the first `size` leaves, from a memo of perfect subtrees (fast for many sizes). */
function rootsOf(leaves: Buffer[], sizes: number[]): Map<number, Buffer> {
  const roots = new Map<number, Buffer>();
  for (const size of sizes) roots.set(size, rootOf(leaves.slice(0, size)));
  return roots;
}

export async function auditLog(db: Executor, storage: ObjectStorage, verifierKey: string): Promise<AuditReport> {
  const entries = await sql<{ certificate_id: string; kind: string; entry: string; log_index: number | null; checkpoint_size: number | null; inclusion_proof: Uint8Array | null }>`
    SELECT certificate_id::text AS certificate_id, kind, entry, log_index, checkpoint_size, inclusion_proof FROM transparency_log_entries ORDER BY log_index NULLS LAST, id`.execute(db);
  const sequenced = entries.rows.filter((e) => e.log_index !== null);
  sequenced.forEach((e, i) => assert.equal(e.log_index, i, `entry indexes are 0..n-1 without gaps (at ${i})`));
  const events = new Set(entries.rows.map((e) => `${e.certificate_id}/${e.kind}`));
  assert.equal(events.size, entries.rows.length, 'no certificate event is logged twice');
  const leaves = sequenced.map((e) => leafHash(Buffer.from(e.entry, 'utf8')));
  const state = (await sql<{ tree_size: number; published_size: number | null }>`SELECT tree_size, published_size FROM transparency_log_state`.execute(db)).rows[0]!;
  assert.equal(state.tree_size, sequenced.length, 'the state row counts what is sequenced');
  const checkpoints = (await sql<{ tree_size: number; root_hash: Uint8Array; note: string }>`SELECT tree_size, root_hash, note FROM transparency_log_checkpoints ORDER BY tree_size`.execute(db)).rows;
  const roots = rootsOf(leaves, checkpoints.map((c) => c.tree_size));
  for (const c of checkpoints) {
    const opened = openCheckpoint(c.note, verifierKey);
    assert.equal(opened.size, c.tree_size);
    assert.ok(opened.root.equals(roots.get(c.tree_size)!), `checkpoint ${c.tree_size} signs the root of the first ${c.tree_size} entries`);
    assert.ok(Buffer.from(c.root_hash).equals(opened.root));
  }
  for (const e of sequenced) {
    const path: Buffer[] = [];
    const proof = Buffer.from(e.inclusion_proof!);
    for (let i = 0; i < proof.length; i += 32) path.push(proof.subarray(i, i + 32));
    assert.ok(roots.has(e.checkpoint_size!), `entry ${e.log_index}'s checkpoint ${e.checkpoint_size} was signed`);
    assert.ok(verifyInclusion(leaves[e.log_index!]!, e.log_index!, e.checkpoint_size!, path, roots.get(e.checkpoint_size!)!), `entry ${e.log_index}'s proof`);
  }
  if (state.published_size !== null) {
    const published = state.published_size;
    const note = (await bytesOf(storage, 'log/checkpoint'))?.toString('utf8');
    assert.equal(note, checkpoints.find((c) => c.tree_size === published)?.note, 'the checkpoint object is the newest published one');
    // Level 0 tiles and bundles of the published size (full ones and the partial one), and level 1.
    const texts = sequenced.slice(0, published).map((e) => Buffer.from(e.entry, 'utf8'));
    for (let index = 0; index * 256 < published; index++) {
      const width = Math.min(256, published - index * 256);
      const tile = await bytesOf(storage, `log/${tilePath({ level: 0, index, width })}`);
      assert.ok(tile?.equals(Buffer.concat(leaves.slice(index * 256, index * 256 + width))), `tile 0/${index} width ${width}`);
      const bundle = await bytesOf(storage, `log/${tilePath({ level: 'entries', index, width })}`);
      assert.ok(bundle?.equals(entryBundle(texts.slice(index * 256, index * 256 + width))), `bundle ${index} width ${width}`);
    }
    const level1 = Math.floor(published / 256);
    for (let index = 0; index * 256 < level1; index++) {
      const width = Math.min(256, level1 - index * 256);
      const expected = Buffer.concat(Array.from({ length: width }, (_, i) => rootOf(leaves.slice((index * 256 + i) * 256, (index * 256 + i + 1) * 256))));
      const tile = await bytesOf(storage, `log/${tilePath({ level: 1, index, width })}`);
      assert.ok(tile?.equals(expected), `tile 1/${index} width ${width}`);
    }
    // Every signed size up to the published one has its partial level-0 tile.
    for (const c of checkpoints.filter((x) => x.tree_size <= published && x.tree_size % 256 !== 0)) {
      const width = c.tree_size % 256;
      const index = Math.floor(c.tree_size / 256);
      assert.ok(await storage.exists(`log/${tilePath({ level: 0, index, width })}`), `partial tile of signed size ${c.tree_size}`);
    }
  }
  return { entries: sequenced.length, checkpoints: checkpoints.length, publishedSize: state.published_size, roots, leaves };
}
