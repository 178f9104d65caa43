/**
 * Encryption at rest of private keys (token signing keys, the transparency log's key, the Content
 * Credentials chain's keys): AES-256-GCM under a key derived from MASTER_KEY with
 * HKDF-SHA256. The key id is the additional authenticated data, so an envelope copied onto another
 * key's row does not decrypt.
 *
 * Envelope: `v1.<iv>.<tag>.<ciphertext>` (base64url parts).
 */
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

const VERSION = 'v1';
// A fixed salt is fine: MASTER_KEY is a high-entropy secret; the salt and info only separate this use.
const SALT = 'certdesk';
const INFO = 'certdesk signing-keys v1 aes-256-gcm';

export class KeyDecryptionError extends Error {
  override name = 'KeyDecryptionError';
}

function deriveKey(masterKey: string): Buffer {
  return Buffer.from(hkdfSync('sha256', Buffer.from(masterKey, 'utf8'), SALT, INFO, 32));
}

/** Encrypts `plaintext` (the private JWK as JSON) for storage, bound to `kid`. */
export function encryptPrivateKey(plaintext: string, masterKey: string, kid: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', deriveKey(masterKey), iv);
  cipher.setAAD(Buffer.from(kid, 'utf8'));
  const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return [VERSION, iv.toString('base64url'), cipher.getAuthTag().toString('base64url'), ciphertext.toString('base64url')].join('.');
}

/** Decrypts an envelope made by encryptPrivateKey; throws KeyDecryptionError on a wrong key or tampering. */
export function decryptPrivateKey(envelope: string, masterKey: string, kid: string): string {
  const parts = envelope.split('.');
  if (parts.length !== 4 || parts[0] !== VERSION) throw new KeyDecryptionError(`signing key ${kid}: unknown envelope format`);
  const [, iv, tag, ciphertext] = parts as [string, string, string, string];
  try {
    const decipher = createDecipheriv('aes-256-gcm', deriveKey(masterKey), Buffer.from(iv, 'base64url'));
    decipher.setAAD(Buffer.from(kid, 'utf8'));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    return Buffer.concat([decipher.update(Buffer.from(ciphertext, 'base64url')), decipher.final()]).toString('utf8');
  } catch {
    throw new KeyDecryptionError(`signing key ${kid} cannot be decrypted: MASTER_KEY is not the key it was encrypted with`);
  }
}
