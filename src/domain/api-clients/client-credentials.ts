/**
 * API client credentials: a public client_id and a secret of 256 random bits, shown once and stored only
 * as a SHA-256 hash. A slow password hash would buy nothing for a 256-bit random secret and would cap the
 * token endpoint's throughput; seed files may name weaker secrets for test environments only.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

const CLIENT_ID_PREFIX = 'cd_';
const SECRET_PREFIX = 'cds_';

export interface GeneratedCredentials {
  clientId: string;
  clientSecret: string;
}

export function generateClientCredentials(): GeneratedCredentials {
  return {
    clientId: `${CLIENT_ID_PREFIX}${randomBytes(12).toString('base64url')}`,
    // 32 bytes = 256 bits of entropy; the prefix lets secret scanners recognize a leaked certdesk secret.
    clientSecret: `${SECRET_PREFIX}${randomBytes(32).toString('base64url')}`,
  };
}

export function hashClientSecret(secret: string): string {
  return `sha256:${createHash('sha256').update(secret, 'utf8').digest('hex')}`;
}

/** Constant-time comparison of a presented secret with a stored hash. */
export function verifyClientSecret(secret: string, storedHash: string): boolean {
  const expected = Buffer.from(storedHash, 'utf8');
  const actual = Buffer.from(hashClientSecret(secret), 'utf8');
  return expected.length === actual.length && timingSafeEqual(expected, actual);
}
