export type { ObjectStorage, StoredObject } from './object-storage.js';
export { LocalDirectoryStorage } from './local-directory-storage.js';
export { isValidObjectKey, OBJECT_KEY_PATTERN } from './object-key.js';

import type { Config } from '../../config.js';
import { LocalDirectoryStorage } from './local-directory-storage.js';
import type { ObjectStorage } from './object-storage.js';

/** The object storage the configuration names (a local directory for now; S3 arrives with its issue). */
export function openObjectStorage(config: Pick<Config, 'objectStorageDir'>): ObjectStorage {
  return new LocalDirectoryStorage(config.objectStorageDir);
}
