/**
 * ObjectStorage in an S3-compatible bucket through the AWS SDK v3, selected by
 * `OBJECT_STORAGE_URL=s3://bucket/prefix`. Endpoint, region and credentials come from the SDK's usual
 * settings (AWS_ENDPOINT_URL_S3 / AWS_ENDPOINT_URL, AWS_REGION, AWS_ACCESS_KEY_ID, profiles, instance
 * roles); path-style addressing is a setting of its own (most self-hosted S3 servers need it).
 *
 * The SDK is imported on first use, so deployments on the local directory never load it.
 */
import type { Readable } from 'node:stream';
import type { S3Client } from '@aws-sdk/client-s3';
import { byteCounter } from './local-directory-storage.js';
import { isValidObjectKey } from './object-key.js';
import {
  ObjectExistsError,
  ObjectSizeMismatchError,
  type ByteRange,
  type ObjectHead,
  type ObjectStorage,
  type PutStreamOptions,
  type StoredObject,
} from './object-storage.js';
import type { PresignedUpload, PresignUploadRequest, UploadPresigner } from './upload-signing.js';

export interface S3Location {
  bucket: string;
  /** Key prefix without leading or trailing slashes; '' for the bucket's root. */
  prefix: string;
}

/** Parses `s3://bucket/prefix`; throws with a one-line reason. */
export function parseS3Url(raw: string): S3Location {
  const m = /^s3:\/\/([a-z0-9][a-z0-9.-]{1,61}[a-z0-9])(?:\/(.*))?$/.exec(raw);
  if (!m) throw new Error(`not an s3://bucket/prefix URL: "${raw}"`);
  const prefix = (m[2] ?? '').replace(/^\/+|\/+$/g, '');
  if (prefix !== '' && !isValidObjectKey(prefix)) throw new Error(`invalid key prefix in "${raw}"`);
  return { bucket: m[1]!, prefix };
}

export interface S3StorageOptions extends S3Location {
  forcePathStyle: boolean;
  /** Extra client settings (tests: endpoint and credentials); the SDK's own resolution otherwise. */
  clientConfig?: Record<string, unknown>;
}

type Sdk = typeof import('@aws-sdk/client-s3');

function isNotFound(err: unknown): boolean {
  const e = err as { name?: string; $metadata?: { httpStatusCode?: number } };
  return e.name === 'NoSuchKey' || e.name === 'NotFound' || e.$metadata?.httpStatusCode === 404;
}

/**
 * Streamed writes go up in parts of this size (S3's minimum), at most UPLOAD_QUEUE_SIZE parts in flight:
 * a write holds at most ~10 MiB in memory whatever the file's size. A body smaller than one part is one
 * plain PutObject.
 */
const UPLOAD_PART_BYTES = 5 * 1024 * 1024;
const UPLOAD_QUEUE_SIZE = 2;

export class S3ObjectStorage implements ObjectStorage, UploadPresigner {
  readonly description: string;
  private sdk: Promise<{ sdk: Sdk; client: S3Client }> | null = null;

  constructor(private readonly options: S3StorageOptions) {
    this.description = `S3 bucket s3://${options.bucket}${options.prefix ? `/${options.prefix}` : ''}`;
  }

  private load(): Promise<{ sdk: Sdk; client: S3Client }> {
    this.sdk ??= import('@aws-sdk/client-s3').then((sdk) => {
      const hasRegion = Boolean(process.env.AWS_REGION || process.env.AWS_DEFAULT_REGION);
      const client = new sdk.S3Client({
        forcePathStyle: this.options.forcePathStyle,
        // The SDK's default CRC32 of the request body would be computed over the empty body of a presigned
        // PUT and signed into its URL; checksums only where an operation requires one.
        requestChecksumCalculation: 'WHEN_REQUIRED',
        responseChecksumValidation: 'WHEN_REQUIRED',
        ...(hasRegion ? {} : { region: 'us-east-1' }),
        ...(this.options.clientConfig ?? {}),
      });
      return { sdk, client };
    });
    return this.sdk;
  }

  /** The bucket key of an object key. */
  private bucketKey(key: string): string {
    if (!isValidObjectKey(key)) throw new Error(`invalid object key: ${JSON.stringify(key)}`);
    return this.options.prefix ? `${this.options.prefix}/${key}` : key;
  }

  async put(key: string, body: Buffer, contentType: string): Promise<void> {
    const { sdk, client } = await this.load();
    await client.send(new sdk.PutObjectCommand({ Bucket: this.options.bucket, Key: this.bucketKey(key), Body: body, ContentType: contentType, ContentLength: body.length }));
  }

  async putStream(key: string, body: Readable, options: PutStreamOptions): Promise<{ size: number }> {
    // Streamed through @aws-sdk/lib-storage (multipart upload, parts sent as they fill, aborted on error),
    // never collected whole. If-None-Match rides on the PutObject, or on CompleteMultipartUpload.
    const { Upload } = await import('@aws-sdk/lib-storage');
    const { client } = await this.load();
    const counter = byteCounter(options.expectedSize);
    body.on('error', (err) => counter.destroy(err));
    const bucketKey = this.bucketKey(key);
    const upload = new Upload({
      client,
      partSize: UPLOAD_PART_BYTES,
      queueSize: UPLOAD_QUEUE_SIZE,
      leavePartsOnError: false,
      params: {
        Bucket: this.options.bucket,
        Key: bucketKey,
        Body: body.pipe(counter),
        ContentType: options.contentType,
        ...(options.ifNoneMatch ? { IfNoneMatch: '*' } : {}),
      },
    });
    try {
      await upload.done();
    } catch (err) {
      if ((err as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode === 412) throw new ObjectExistsError(`object ${key} already exists`);
      // lib-storage reports the body's own error (e.g. ObjectSizeMismatchError from the counter) as is.
      throw err;
    }
    if (options.expectedSize !== undefined && counter.count !== options.expectedSize) {
      // Too few bytes: the object was written; it must not stay under the key.
      await this.delete(key);
      throw new ObjectSizeMismatchError(options.expectedSize, counter.count);
    }
    return { size: counter.count };
  }

  async get(key: string, range?: ByteRange): Promise<StoredObject | null> {
    const { sdk, client } = await this.load();
    try {
      const out = await client.send(
        new sdk.GetObjectCommand({ Bucket: this.options.bucket, Key: this.bucketKey(key), ...(range ? { Range: `bytes=${range.start}-${range.end}` } : {}) }),
      );
      return { body: out.Body as Readable, contentType: out.ContentType ?? 'application/octet-stream', size: out.ContentLength ?? 0 };
    } catch (err) {
      if (isNotFound(err)) return null;
      // A range starting past the end of a (short) object: nothing to read.
      if ((err as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode === 416) {
        const { Readable } = await import('node:stream');
        return { body: Readable.from([]), contentType: 'application/octet-stream', size: 0 };
      }
      throw err;
    }
  }

  async head(key: string): Promise<ObjectHead | null> {
    const { sdk, client } = await this.load();
    try {
      const out = await client.send(new sdk.HeadObjectCommand({ Bucket: this.options.bucket, Key: this.bucketKey(key) }));
      return { size: out.ContentLength ?? 0, contentType: out.ContentType ?? 'application/octet-stream' };
    } catch (err) {
      if (isNotFound(err)) return null;
      throw err;
    }
  }

  async exists(key: string): Promise<boolean> {
    return (await this.head(key)) !== null;
  }

  async delete(key: string): Promise<void> {
    const { sdk, client } = await this.load();
    await client.send(new sdk.DeleteObjectCommand({ Bucket: this.options.bucket, Key: this.bucketKey(key) }));
  }

  /** A presigned PUT: Content-Length, Content-Type and If-None-Match are signed, so the bucket refuses other bytes. */
  async presignUpload(request: PresignUploadRequest): Promise<PresignedUpload> {
    const { sdk, client } = await this.load();
    const { getSignedUrl } = await import('@aws-sdk/s3-request-presigner');
    const expiresIn = Math.max(1, Math.floor((request.expiresAt.getTime() - Date.now()) / 1000));
    const url = await getSignedUrl(
      client,
      new sdk.PutObjectCommand({
        Bucket: this.options.bucket,
        Key: this.bucketKey(request.key),
        ContentLength: request.size,
        ContentType: request.contentType,
        IfNoneMatch: '*',
      }),
      { expiresIn, signableHeaders: new Set(['content-length', 'content-type', 'if-none-match']) },
    );
    return { url, method: 'PUT', headers: { 'Content-Type': request.contentType, 'If-None-Match': '*' }, expiresAt: request.expiresAt };
  }

  /** A presigned GET of an object, valid for `ttlSeconds`. */
  async presignGet(key: string, ttlSeconds: number): Promise<string> {
    const { sdk, client } = await this.load();
    const { getSignedUrl } = await import('@aws-sdk/s3-request-presigner');
    return getSignedUrl(client, new sdk.GetObjectCommand({ Bucket: this.options.bucket, Key: this.bucketKey(key) }), { expiresIn: ttlSeconds });
  }

  /** Releases the SDK client's sockets. */
  async close(): Promise<void> {
    if (this.sdk) (await this.sdk).client.destroy();
  }
}
