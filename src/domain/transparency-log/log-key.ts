/**
 * The log's Ed25519 key: made on first use, kept in the database encrypted with MASTER_KEY like the other
 * signing keys (src/storage/key-encryption.ts; the key name is the additional authenticated data), one
 * for the log's life. Its name is the log's origin, fixed when the key is made: a later change of the
 * public base URL does not rename the log (a new name would be a new log to every verifier).
 */
import { createPrivateKey, generateKeyPairSync, type KeyObject } from 'node:crypto';
import { decryptPrivateKey, encryptPrivateKey } from '../../storage/key-encryption.js';
import type { Executor } from '../../storage/database.js';
import { insertLogKey, readLogKey } from './transparency-log.repository.js';
import { isValidKeyName, verifierKey, type NoteSigner } from './signed-note.js';

/** `<public base URL without its scheme>/log`: the origin line and key name (DECISIONS 14). */
export function logOrigin(publicBaseUrl: string): string {
  const url = new URL(publicBaseUrl);
  const path = url.pathname.replace(/\/+$/, '');
  return `${url.host}${path}/log`;
}

function rawPublicKey(privateKey: KeyObject): Buffer {
  const jwk = privateKey.export({ format: 'jwk' });
  return Buffer.from(jwk.x!, 'base64url');
}

export interface LogKeyOptions {
  masterKey: string | null;
  /** The origin a new key is named for. */
  origin: string;
}

/** The log's signer, making and storing the key first when there is none (race-safe: the first one stays). */
export async function ensureLogSigner(db: Executor, options: LogKeyOptions): Promise<NoteSigner> {
  let row = await readLogKey(db);
  if (!row) {
    if (!isValidKeyName(options.origin)) throw new Error(`the log origin ${JSON.stringify(options.origin)} is not a valid key name`);
    const { privateKey } = generateKeyPairSync('ed25519');
    const pkcs8 = privateKey.export({ format: 'der', type: 'pkcs8' }).toString('base64');
    await insertLogKey(db, {
      name: options.origin,
      public_key: rawPublicKey(privateKey),
      private_key: options.masterKey ? encryptPrivateKey(pkcs8, options.masterKey, options.origin) : pkcs8,
      encrypted: options.masterKey !== null,
    });
    row = (await readLogKey(db))!;
  }
  let pkcs8 = row.private_key;
  if (row.encrypted) {
    if (!options.masterKey) throw new Error('the transparency log key is encrypted but MASTER_KEY is not set');
    pkcs8 = decryptPrivateKey(row.private_key, options.masterKey, row.name);
  }
  const privateKey = createPrivateKey({ key: Buffer.from(pkcs8, 'base64'), format: 'der', type: 'pkcs8' });
  if (!rawPublicKey(privateKey).equals(row.public_key)) throw new Error('the transparency log key does not match its public key');
  return { name: row.name, publicKey: row.public_key, privateKey };
}

/** The verifier key string of the stored log key, or null before one exists (`GET /log/key`, `certdesk log key`). */
export async function readVerifierKey(db: Executor): Promise<string | null> {
  const row = await readLogKey(db);
  return row ? verifierKey(row.name, row.public_key) : null;
}
