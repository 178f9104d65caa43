/**
 * Encryption at rest of the token signing keys: the storage layer's (src/storage/key-encryption.ts), which
 * the other private keys at rest (the transparency log's, the Content Credentials chain's) use too.
 */
export { decryptPrivateKey, encryptPrivateKey, KeyDecryptionError } from '../../storage/key-encryption.js';
