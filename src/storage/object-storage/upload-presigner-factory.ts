/** The upload presigner that belongs to a storage: the bucket's own (S3) or the service's HMAC one (local). */
import type { Db } from '../database.js';
import { SERVER_SECRET, serverSecret } from '../server-secrets.js';
import type { ObjectStorage } from './object-storage.js';
import { S3ObjectStorage } from './s3-storage.js';
import { HmacUploadPresigner, type UploadPresigner } from './upload-signing.js';

export async function createUploadPresigner(storage: ObjectStorage, db: Db, publicBaseUrl: string): Promise<UploadPresigner> {
  if (storage instanceof S3ObjectStorage) return storage;
  return new HmacUploadPresigner(await serverSecret(db, SERVER_SECRET.presign), publicBaseUrl);
}
