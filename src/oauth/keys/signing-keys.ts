/**
 * Signing key lifecycle: the first key is created on first start (race-safe across instances), `keys
 * rotate` adds a key that signs from then on and retires the previous one, and retired public keys stay
 * published until every token they signed has expired, or forever when they signed a certificate.
 *
 * Certificates (src/domain/certificates/) are signed by these same keys: one JWKS, one rotation command.
 * A token and a certificate cannot pass for each other because every verifier pins `typ`
 * (`at+jwt` for access tokens, `certdesk-certificate+jwt` for certificates) and checks its own claims.
 */
import { calculateJwkThumbprint, exportJWK, generateKeyPair, importJWK, type JWK } from 'jose';
import type { Db, Executor } from '../../storage/database.js';
import { decryptPrivateKey, encryptPrivateKey } from './key-encryption.js';
import {
  countActiveSigningKeys,
  insertSigningKey,
  listPublishedSigningKeys,
  retireActiveKeysExcept,
  withSigningKeysLock,
  type SigningKeyRow,
} from './signing-key.repository.js';

export const SIGNING_ALG = 'ES256';

/** Extra time a retired key stays published beyond the token lifetime: clock skew between hosts. */
export const RETIREMENT_SKEW_SECONDS = 300;

export interface KeyRing {
  /** The key that signs new tokens: the newest active one. */
  signing: { kid: string; privateKey: CryptoKey };
  /**
   * Public keys accepted for access-token verification, by kid (active and recently retired keys). A key
   * kept published only for its certificates is not here: no token it signed can still be valid.
   */
  verification: Map<string, CryptoKey>;
  /** The JWKS document (`/.well-known/jwks.json`): the keys above and every key that signed a certificate. */
  jwks: { keys: JWK[] };
  /** Whether the signing key is stored encrypted. */
  signingKeyEncrypted: boolean;
}

async function newKeyRow(masterKey: string | null): Promise<Omit<SigningKeyRow, 'createdAt' | 'retiredAt'>> {
  const { publicKey, privateKey } = await generateKeyPair(SIGNING_ALG, { extractable: true });
  const publicJwk = await exportJWK(publicKey);
  const kid = await calculateJwkThumbprint(publicJwk);
  const privateJson = JSON.stringify(await exportJWK(privateKey));
  return {
    kid,
    alg: SIGNING_ALG,
    publicJwk: { ...publicJwk, kid, alg: SIGNING_ALG, use: 'sig' },
    privateKey: masterKey ? encryptPrivateKey(privateJson, masterKey, kid) : privateJson,
    encrypted: masterKey !== null,
  };
}

/** Creates the first signing key unless an active one exists. Returns the new kid, or null. */
export async function ensureSigningKey(db: Db, masterKey: string | null): Promise<string | null> {
  // Fast path without the lock: every start after the first.
  if ((await countActiveSigningKeys(db)) > 0) return null;
  const row = await newKeyRow(masterKey);
  return withSigningKeysLock(db, async (trx) => {
    // Re-read under the lock: another instance may have created the key meanwhile.
    if ((await countActiveSigningKeys(trx)) > 0) return null;
    await insertSigningKey(trx, row);
    return row.kid;
  });
}

export interface RotationResult {
  kid: string;
  retired: string[];
}

/** Adds a new signing key and retires the previously active ones. */
export async function rotateSigningKey(db: Db, masterKey: string | null): Promise<RotationResult> {
  const row = await newKeyRow(masterKey);
  return withSigningKeysLock(db, async (trx) => {
    await insertSigningKey(trx, row);
    const retired = await retireActiveKeysExcept(trx, row.kid);
    return { kid: row.kid, retired };
  });
}

export interface KeyRingOptions {
  masterKey: string | null;
  accessTokenTtlSeconds: number;
  now?: Date;
}

/** Loads the keys that sign and verify; throws when no active key exists or it cannot be decrypted. */
export async function loadKeyRing(db: Executor, options: KeyRingOptions): Promise<KeyRing> {
  const now = options.now ?? new Date();
  const cutoff = new Date(now.getTime() - (options.accessTokenTtlSeconds + RETIREMENT_SKEW_SECONDS) * 1000);
  const rows = await listPublishedSigningKeys(db, cutoff);
  const active = rows.find((r) => r.retiredAt === null && r.alg === SIGNING_ALG);
  if (!active) throw new Error('no active signing key: run `certdesk serve` once or `certdesk keys rotate`');
  let privateJson = active.privateKey;
  if (active.encrypted) {
    if (!options.masterKey) throw new Error(`signing key ${active.kid} is encrypted but MASTER_KEY is not set`);
    privateJson = decryptPrivateKey(active.privateKey, options.masterKey, active.kid);
  }
  const privateKey = (await importJWK(JSON.parse(privateJson) as JWK, SIGNING_ALG)) as CryptoKey;
  const verification = new Map<string, CryptoKey>();
  const jwks: JWK[] = [];
  for (const row of rows) {
    if (row.alg !== SIGNING_ALG) continue;
    const publicJwk = row.publicJwk as JWK;
    const tokensMayBeValid = row.retiredAt === null || row.retiredAt > cutoff;
    if (tokensMayBeValid) verification.set(row.kid, (await importJWK(publicJwk, SIGNING_ALG)) as CryptoKey);
    jwks.push({ kty: publicJwk.kty, crv: publicJwk.crv, x: publicJwk.x, y: publicJwk.y, kid: row.kid, alg: SIGNING_ALG, use: 'sig' });
  }
  return { signing: { kid: active.kid, privateKey }, verification, jwks: { keys: jwks }, signingKeyEncrypted: active.encrypted };
}
