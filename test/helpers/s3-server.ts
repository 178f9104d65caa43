/**
 * A real S3-compatible server on 127.0.0.1 for tests: s3rver (npm), started on a free port with a
 * throw-away directory and one bucket, stopped by `close()`. It speaks the S3 REST API the AWS SDK uses
 * (path-style), but it does not verify SigV4 signatures: tests of signature and size refusal run against
 * the embedded storage, and the API checks every upload's size in storage before using it.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import S3rver from 's3rver';
import { S3ObjectStorage } from '../../src/storage/object-storage/index.js';

export interface TestS3Server {
  endpoint: string;
  bucket: string;
  /** A storage on the bucket under `prefix`. */
  storage(prefix?: string): S3ObjectStorage;
  close(): Promise<void>;
}

export const TEST_BUCKET = 'certdesk-test';

export interface S3ServerOptions {
  /**
   * Web origins allowed to PUT uploads from a browser (the bucket's CORS rules), as a real bucket behind
   * the web application's upload page must be configured.
   */
  corsOrigins?: string[];
}

/**
 * The bucket's CORS rules exactly as docs/web.md tells operators to set them: the origins may PUT with the
 * two headers a presigned upload signs besides Content-Length (the browser sets that one itself).
 */
function corsConfiguration(origins: string[]): string {
  const allowed = origins.map((o) => `<AllowedOrigin>${o}</AllowedOrigin>`).join('');
  return `<CORSConfiguration><CORSRule>${allowed}<AllowedMethod>PUT</AllowedMethod><AllowedHeader>content-type</AllowedHeader><AllowedHeader>if-none-match</AllowedHeader></CORSRule></CORSConfiguration>`;
}

export async function startS3Server(options: S3ServerOptions = {}): Promise<TestS3Server> {
  const directory = mkdtempSync(path.join(os.tmpdir(), 'certdesk-s3-'));
  const configs = options.corsOrigins?.length ? [corsConfiguration(options.corsOrigins)] : [];
  const server = new S3rver({ address: '127.0.0.1', port: 0, directory, silent: true, configureBuckets: [{ name: TEST_BUCKET, configs }] });
  const { port } = (await server.run()) as { port: number };
  const endpoint = `http://127.0.0.1:${port}`;
  const storages: S3ObjectStorage[] = [];
  return {
    endpoint,
    bucket: TEST_BUCKET,
    storage(prefix = '') {
      const s = new S3ObjectStorage({
        bucket: TEST_BUCKET,
        prefix,
        forcePathStyle: true,
        clientConfig: { endpoint, region: 'us-east-1', credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' } },
      });
      storages.push(s);
      return s;
    },
    async close() {
      for (const s of storages) await s.close();
      await server.close();
      rmSync(directory, { recursive: true, force: true });
    },
  };
}
