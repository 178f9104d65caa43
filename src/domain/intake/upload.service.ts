/**
 * Announcing an upload (POST /v1/uploads): checks the size against the limit, records the upload and
 * hands back a presigned PUT with which the client sends the bytes straight to object storage.
 */
import { createHash, randomUUID } from 'node:crypto';
import { Transform, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Db } from '../../storage/database.js';
import type { ObjectStorage, PresignedUpload, UploadPresigner } from '../../storage/object-storage/index.js';
import type { Principal } from '../principal.js';
import type { Clock } from '../time/clock.js';
import { uploadObjectKey } from './object-keys.js';
import { deleteUpload, insertUpload, setUploadSize } from './upload.repository.js';
import type { UploadLimits } from './upload-limits.js';

export interface UploadRequest {
  file_name: string;
  content_type: string;
  size: number;
}

export interface UploadTicket {
  upload_id: string;
  upload_url: string;
  upload_method: 'PUT';
  upload_headers: Record<string, string>;
  /** RFC 3339 UTC. */
  expires_at: string;
}

export interface UploadServiceDeps {
  db: Db;
  clock: Clock;
  presigner: UploadPresigner;
  maxUploadBytes: number;
  uploadTtlSeconds: number;
  /** Per-user limits (outstanding uploads, creation rate); none: unlimited. */
  limits?: UploadLimits;
}

/** The size is above MAX_UPLOAD_BYTES (the route answers 422 on `["body", "size"]`). */
export class UploadTooLargeError extends Error {
  override name = 'UploadTooLargeError';
  constructor(readonly limit: number) {
    super(`uploads are limited to ${limit} bytes`);
  }
}

export async function announceUpload(deps: UploadServiceDeps, principal: Principal, request: UploadRequest): Promise<UploadTicket> {
  if (request.size > deps.maxUploadBytes) throw new UploadTooLargeError(deps.maxUploadBytes);
  if (deps.limits) await deps.limits.admitUpload(principal, request.size);
  const uploadId = randomUUID();
  const now = deps.clock.now();
  // Whole seconds, so the URL's expiry and the stored one are the same instant.
  const expiresAt = new Date((Math.floor(now.getTime() / 1000) + deps.uploadTtlSeconds) * 1000);
  const key = uploadObjectKey(principal.organizationId, uploadId);
  const presigned: PresignedUpload = await deps.presigner.presignUpload({ key, size: request.size, contentType: request.content_type, expiresAt });
  await insertUpload(deps.db, {
    upload_id: uploadId,
    organization_id: principal.organizationId,
    user_id: principal.userId,
    object_key: key,
    file_name: request.file_name,
    content_type: request.content_type,
    size: request.size,
    created_at: now,
    expires_at: expiresAt,
  });
  return {
    upload_id: uploadId,
    upload_url: presigned.url,
    upload_method: 'PUT',
    upload_headers: presigned.headers,
    expires_at: expiresAt.toISOString(),
  };
}

export interface ReceivedUpload {
  uploadId: string;
  /** Its object key. */
  key: string;
  size: number;
  /** SHA-256 of the bytes, hex. */
  sha256: string;
}

/**
 * Receives an upload's bytes through the service (multipart order creation): the upload row is written
 * first (with its expiry, so the bytes can always be found and cleaned up), then the bytes are streamed to
 * storage, counted and hashed on the way. A stream that fails leaves neither row nor object.
 */
export async function receiveUpload(
  deps: Pick<UploadServiceDeps, 'db' | 'clock' | 'uploadTtlSeconds'> & { storage: ObjectStorage },
  principal: Principal,
  file: { fileName: string; contentType: string; body: Readable; maxBytes: number; truncated: () => boolean },
): Promise<ReceivedUpload> {
  const uploadId = randomUUID();
  const now = deps.clock.now();
  const key = uploadObjectKey(principal.organizationId, uploadId);
  await insertUpload(deps.db, {
    upload_id: uploadId,
    organization_id: principal.organizationId,
    user_id: principal.userId,
    object_key: key,
    file_name: file.fileName,
    content_type: file.contentType,
    size: 0,
    created_at: now,
    expires_at: new Date(now.getTime() + deps.uploadTtlSeconds * 1000),
  });
  const hash = createHash('sha256');
  const hashing = new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      hash.update(chunk);
      callback(null, chunk);
    },
  });
  // pipeline() carries a failing source forward (a multipart file over its limit, or one whose form broke off,
  // even before this point): the copy fails instead of waiting for bytes that never come.
  const feeding = pipeline(file.body, hashing);
  feeding.catch(() => undefined);
  try {
    const { size } = await deps.storage.putStream(key, hashing, { contentType: file.contentType, ifNoneMatch: true });
    await feeding;
    if (file.truncated() || size > file.maxBytes) throw new UploadTooLargeError(file.maxBytes);
    await setUploadSize(deps.db, uploadId, size);
    return { uploadId, key, size, sha256: hash.digest('hex') };
  } catch (err) {
    await deps.storage.delete(key).catch(() => undefined);
    await deleteUpload(deps.db, uploadId).catch(() => undefined);
    throw err;
  }
}

/** Forgets an unused upload at once: its bytes first, then its row (as the cleanup job does). Never throws. */
export async function discardUpload(deps: { db: Db; storage: ObjectStorage }, upload: { uploadId: string; key: string }): Promise<void> {
  try {
    await deps.storage.delete(upload.key);
    await deleteUpload(deps.db, upload.uploadId);
  } catch {
    // Left for the cleanup job: the row (with its expiry) still finds the bytes.
  }
}
