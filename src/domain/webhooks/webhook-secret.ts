/**
 * Endpoint signing secrets: `whsec_` + base64 of 32 random bytes (the Standard Webhooks format), stored
 * as an AES-256-GCM envelope under a key derived from MASTER_KEY with HKDF-SHA256 (the scheme of signing
 * keys, src/oauth/keys/key-encryption.ts, with its own info string), bound to the endpoint id as
 * additional data. Without MASTER_KEY (development, tests) the secret is stored as it is, as signing keys are.
 */
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

const VERSION = 'v1';
const INFO = 'certdesk webhook-secrets v1 aes-256-gcm';

export function newWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

function deriveKey(masterKey: string): Buffer {
  return Buffer.from(hkdfSync('sha256', Buffer.from(masterKey, 'utf8'), 'certdesk', INFO, 32));
}

export function sealWebhookSecret(secret: string, masterKey: string | null, endpointId: string): string {
  if (!masterKey) return secret;
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', deriveKey(masterKey), iv);
  cipher.setAAD(Buffer.from(endpointId, 'utf8'));
  const ciphertext = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()]);
  return [VERSION, iv.toString('base64url'), cipher.getAuthTag().toString('base64url'), ciphertext.toString('base64url')].join('.');
}

/** @throws when the envelope was sealed under another MASTER_KEY or for another endpoint. */
export function openWebhookSecret(stored: string, masterKey: string | null, endpointId: string): string {
  if (stored.startsWith('whsec_')) return stored;
  const parts = stored.split('.');
  if (!masterKey || parts.length !== 4 || parts[0] !== VERSION) throw new Error(`webhook endpoint ${endpointId}: its secret cannot be read (MASTER_KEY missing or changed)`);
  const [, iv, tag, ciphertext] = parts as [string, string, string, string];
  const decipher = createDecipheriv('aes-256-gcm', deriveKey(masterKey), Buffer.from(iv, 'base64url'));
  decipher.setAAD(Buffer.from(endpointId, 'utf8'));
  decipher.setAuthTag(Buffer.from(tag, 'base64url'));
  return Buffer.concat([decipher.update(Buffer.from(ciphertext, 'base64url')), decipher.final()]).toString('utf8');
}
