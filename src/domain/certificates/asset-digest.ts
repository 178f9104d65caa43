/**
 * The SHA-256 of an order's asset, as uploaded: streamed from object storage (never held in memory whole)
 * and recorded on the order once, so the certify path reads it from the row instead of re-reading a file
 * of up to MAX_UPLOAD_BYTES inside its transaction.
 */
import { createHash } from 'node:crypto';
import type { Executor } from '../../storage/database.js';
import type { ObjectStorage } from '../../storage/object-storage/object-storage.js';
import { readOrderCertificationFacts, recordAssetSha256 } from './certificate.repository.js';

/** The asset's bytes are not in object storage (a seeded order, or bytes deleted): no certificate can name them. */
export class AssetBytesMissingError extends Error {
  override name = 'AssetBytesMissingError';
  constructor(readonly key: string | null) {
    super(key ? `object ${key} does not exist` : 'the order has no asset in object storage');
  }
}

/** Lowercase hex SHA-256 of an object's bytes, streamed. */
export async function assetSha256(storage: ObjectStorage, key: string): Promise<string> {
  const object = await storage.get(key);
  if (!object) throw new AssetBytesMissingError(key);
  const hash = createHash('sha256');
  for await (const chunk of object.body) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

/**
 * The order's asset SHA-256: the recorded one, else computed from the bytes and NOT recorded, so a caller
 * that may still be refused writes nothing (the certify path records it in its own transaction).
 * @returns the digest and whether it is recorded already, or null when the order does not exist.
 * @throws AssetBytesMissingError when the order has no asset bytes to hash.
 */
export async function readAssetSha256(db: Executor, storage: ObjectStorage, orderId: string): Promise<{ sha256: string; recorded: boolean } | null> {
  const facts = await readOrderCertificationFacts(db, orderId);
  if (!facts) return null;
  if (facts.asset_sha256) return { sha256: facts.asset_sha256, recorded: true };
  if (!facts.asset_key) throw new AssetBytesMissingError(null);
  return { sha256: await assetSha256(storage, facts.asset_key), recorded: false };
}

/**
 * The order's recorded asset SHA-256, computing and recording it first when missing. Call it BEFORE the
 * transaction that certifies (it may read a large object); issueCertificate then only reads the column.
 * @returns the digest, or null when the order does not exist.
 * @throws AssetBytesMissingError when the order has no asset bytes to hash.
 */
export async function ensureAssetSha256(db: Executor, storage: ObjectStorage, orderId: string): Promise<string | null> {
  const digest = await readAssetSha256(db, storage, orderId);
  if (digest && !digest.recorded) await recordAssetSha256(db, orderId, digest.sha256);
  return digest?.sha256 ?? null;
}
