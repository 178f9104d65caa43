/**
 * Handing out a certificate's credentialed file (DECISIONS 13): `GET /v1/orders/{order_id}/certificate/file`
 * and the web order page's "Download with Content Credentials", under the same rules. The file is the
 * object the job stored once complete (its key is written only afterwards), streamed as it is.
 */
import type { Readable } from 'node:stream';
import type { Executor } from '../../storage/database.js';
import type { ObjectStorage } from '../../storage/object-storage/object-storage.js';
import { ApiError, NotFoundError } from '../errors.js';
import type { Principal } from '../principal.js';
import { findOrderCertificateFile, type CertificateFileRow } from '../certificates/index.js';

/** Media types of the formats that carry Content Credentials here (the credentialed file keeps the asset's). */
export const CREDENTIALED_MEDIA_TYPES = ['image/jpeg', 'image/png', 'image/webp', 'image/tiff'] as const;

/** Seconds a client is asked to wait while the file is being made (it takes a few seconds after issue). */
export const PENDING_RETRY_AFTER_SECONDS = 5;

/** 409 with `Retry-After`: the job has not made the file yet. */
export class ContentCredentialsPendingError extends ApiError {
  override name = 'ContentCredentialsPendingError';
  constructor() {
    super(409, 'errors.content_credentials_pending', { headers: { 'Retry-After': String(PENDING_RETRY_AFTER_SECONDS) } });
  }
}

/** 409: the format cannot carry Content Credentials, or the file's own manifest could not be read safely. */
export class ContentCredentialsUnsupportedError extends ApiError {
  override name = 'ContentCredentialsUnsupportedError';
  constructor(format: string | null) {
    super(409, format ? 'errors.content_credentials_unsupported_format' : 'errors.content_credentials_unsupported_file', { vars: format ? { format } : {} });
  }
}

/** 410: a revoked certificate's file is no longer handed out (copies already shared are judged live). */
export class ContentCredentialsRevokedError extends ApiError {
  override name = 'ContentCredentialsRevokedError';
  constructor() {
    super(410, 'errors.content_credentials_revoked');
  }
}

export interface CredentialedFile {
  body: Readable;
  size: number;
  mediaType: string;
  /** The asset's name as uploaded (for `Content-Disposition`). */
  fileName: string;
}

/**
 * `unsupported` rows keep why in their note: `format:<name>` for a format that cannot carry a manifest,
 * anything else for a file whose own manifest was refused (docs/content-credentials.md).
 */
export function unsupportedFormatOf(note: string | null): string | null {
  return note?.startsWith('format:') ? note.slice('format:'.length) : null;
}

/** The credentialed file of a certificate row, under the rules of the route. */
export async function openCredentialedFileOf(storage: ObjectStorage, row: CertificateFileRow): Promise<CredentialedFile> {
  if (row.revoked_at) throw new ContentCredentialsRevokedError();
  if (row.content_credentials === 'unsupported') throw new ContentCredentialsUnsupportedError(unsupportedFormatOf(row.content_credentials_note));
  if (row.content_credentials !== 'ready' || !row.content_credentials_key) throw new ContentCredentialsPendingError();
  const object = await storage.get(row.content_credentials_key);
  // The object is written before its key is recorded and never deleted while the row names it.
  if (!object) throw new Error(`credentialed file ${row.content_credentials_key} of certificate ${row.certificate_id} is missing from object storage`);
  // The media type the job found in the bytes (stored with the object), not the one the uploader announced.
  return { body: object.body, size: object.size, mediaType: object.contentType, fileName: row.asset_name };
}

/**
 * The credentialed file of an order the principal sees.
 * @throws NotFoundError (404: no such order, not visible, or no certificate), ContentCredentialsPendingError,
 *   ContentCredentialsUnsupportedError (409), ContentCredentialsRevokedError (410)
 */
export async function openCredentialedFile(db: Executor, storage: ObjectStorage, principal: Principal, orderId: string): Promise<CredentialedFile> {
  const row = await findOrderCertificateFile(db, principal, orderId);
  if (!row) throw new NotFoundError('errors.certificate_not_found');
  return openCredentialedFileOf(storage, row);
}

/**
 * `Content-Disposition: attachment` with the asset's name: a plain ASCII `filename` (anything else
 * replaced) and the exact name as RFC 5987 `filename*`.
 */
export function attachmentDisposition(fileName: string): string {
  const ascii = fileName.replace(/[^\x20-\x7e]|["\\]/g, '_') || 'file';
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(fileName).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)}`;
}
