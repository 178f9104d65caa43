/**
 * Object storage for previews and layers. The embedded default is a local directory; an S3-compatible
 * implementation can stand behind the same interface. Presigned URLs are computed by the HTTP layer from
 * object keys; storage only puts and gets bytes.
 */
import type { Readable } from 'node:stream';

export interface StoredObject {
  body: Readable;
  contentType: string;
  size: number;
}

export interface ObjectStorage {
  readonly description: string;
  /** Writes an object atomically (readers see the old or the new bytes, never a part). */
  put(key: string, body: Buffer, contentType: string): Promise<void>;
  /** Streams an object, or null when there is none. */
  get(key: string): Promise<StoredObject | null>;
  exists(key: string): Promise<boolean>;
  delete(key: string): Promise<void>;
}
