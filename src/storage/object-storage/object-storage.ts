/**
 * Object storage of assets, previews and layers, behind one interface: a local directory (the embedded
 * default) or an S3-compatible bucket through the AWS SDK. Presigned URLs are made by the matching
 * `ObjectUrlSigner` (upload-signing.ts): the storage itself only moves bytes.
 */
import type { Readable } from 'node:stream';

export interface StoredObject {
  body: Readable;
  contentType: string;
  size: number;
}

export interface ObjectHead {
  size: number;
  contentType: string;
}

/** Inclusive byte range, as in an HTTP Range header. */
export interface ByteRange {
  start: number;
  end: number;
}

/** The announced size was not what arrived (too many bytes, or too few). */
export class ObjectSizeMismatchError extends Error {
  override name = 'ObjectSizeMismatchError';
  constructor(
    readonly expected: number,
    readonly received: number,
  ) {
    super(`expected ${expected} bytes, received ${received > expected ? `more than ${expected}` : received}`);
  }
}

/** The key already holds an object and this write may not replace it. */
export class ObjectExistsError extends Error {
  override name = 'ObjectExistsError';
}

export interface PutStreamOptions {
  contentType: string;
  /** When set, exactly this many bytes must arrive (counted while streaming); else ObjectSizeMismatchError. */
  expectedSize?: number;
  /** Refuse (ObjectExistsError) when the key already holds an object. */
  ifNoneMatch?: boolean;
}

export interface ObjectStorage {
  readonly description: string;
  /** Writes an object atomically (readers see the old or the new bytes, never a part). */
  put(key: string, body: Buffer, contentType: string): Promise<void>;
  /**
   * Streams bytes into an object, atomically (nothing is visible under the key unless every byte
   * arrived and the size holds). Returns the number of bytes written.
   */
  putStream(key: string, body: Readable, options: PutStreamOptions): Promise<{ size: number }>;
  /** Streams an object (or a byte range of it), or null when there is none. */
  get(key: string, range?: ByteRange): Promise<StoredObject | null>;
  /** Size and content type of an object, or null when there is none. */
  head(key: string): Promise<ObjectHead | null>;
  exists(key: string): Promise<boolean>;
  delete(key: string): Promise<void>;
}
