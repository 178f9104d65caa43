export type { ByteRange, ObjectHead, ObjectStorage, PutStreamOptions, StoredObject } from './object-storage.js';
export { ObjectExistsError, ObjectSizeMismatchError } from './object-storage.js';
export { LocalDirectoryStorage } from './local-directory-storage.js';
export { S3ObjectStorage, parseS3Url } from './s3-storage.js';
export { HmacUploadPresigner, type PresignedUpload, type PresignUploadRequest, type UploadPresigner } from './upload-signing.js';
export { isKeyOfOrganization, isValidObjectKey, keyOwnershipCheck, OBJECT_KEY_PATTERN, organizationKeyPrefix } from './object-key.js';

import type { Config } from '../../config.js';
import { LocalDirectoryStorage } from './local-directory-storage.js';
import type { ObjectStorage } from './object-storage.js';
import { parseS3Url, S3ObjectStorage } from './s3-storage.js';

/** The object storage the configuration names: S3 for `OBJECT_STORAGE_URL=s3://…`, else the local directory. */
export function openObjectStorage(
  config: Pick<Config, 'objectStorageDir'> & Partial<Pick<Config, 'objectStorageUrl' | 'objectStorageForcePathStyle'>>,
): ObjectStorage {
  if (config.objectStorageUrl) {
    return new S3ObjectStorage({ ...parseS3Url(config.objectStorageUrl), forcePathStyle: config.objectStorageForcePathStyle ?? false });
  }
  return new LocalDirectoryStorage(config.objectStorageDir);
}
