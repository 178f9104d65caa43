/**
 * Encryption at rest of private signing keys under MASTER_KEY: kept in src/storage/key-encryption.ts, below
 * every layer that keeps a key (the token service here, the transparency log in domain/).
 */
export { decryptPrivateKey, encryptPrivateKey, KeyDecryptionError } from '../../storage/key-encryption.js';
