/** Queries on `signing_keys`. Key generation and rotation run under one advisory lock. */
import { sql, type ExpressionBuilder, type Transaction } from 'kysely';
import type { Db, Executor } from '../../storage/database.js';
import type { Database } from '../../storage/schema.js';

export interface SigningKeyRow {
  kid: string;
  alg: string;
  publicJwk: Record<string, unknown>;
  /** The private JWK as JSON, or its encryption envelope when `encrypted`. */
  privateKey: string;
  encrypted: boolean;
  createdAt: Date;
  retiredAt: Date | null;
}

// An arbitrary constant naming "the signing keys" among PostgreSQL advisory locks.
const SIGNING_KEYS_LOCK = 7_215_640_331n;

/**
 * Runs `fn` in a transaction holding the signing-keys advisory lock, so that instances starting at the
 * same time on one database do not each create a "first" key, and two rotations do not interleave.
 */
export async function withSigningKeysLock<T>(db: Db, fn: (trx: Transaction<Database>) => Promise<T>): Promise<T> {
  return db.transaction().execute(async (trx) => {
    await sql`SELECT pg_advisory_xact_lock(${SIGNING_KEYS_LOCK})`.execute(trx);
    return fn(trx);
  });
}

function toRow(r: {
  kid: string;
  alg: string;
  public_jwk: Record<string, unknown>;
  private_key: string;
  encrypted: boolean;
  created_at: Date;
  retired_at: Date | null;
}): SigningKeyRow {
  return {
    kid: r.kid,
    alg: r.alg,
    publicJwk: r.public_jwk,
    privateKey: r.private_key,
    encrypted: r.encrypted,
    createdAt: r.created_at,
    retiredAt: r.retired_at,
  };
}

/** Every key, newest first. */
export async function listSigningKeys(db: Executor): Promise<SigningKeyRow[]> {
  const rows = await db.selectFrom('signing_keys').selectAll().orderBy('created_at', 'desc').orderBy('kid', 'desc').execute();
  return rows.map(toRow);
}

export interface PublishedSigningKeyRow extends SigningKeyRow {
  /** True when the key signed at least one certificate: then it stays published forever. */
  signedCertificates: boolean;
}

/**
 * The keys the JWKS publishes, newest first: active keys, keys retired after `retiredAfter` (whose access
 * tokens may still be valid), and every key that signed a certificate (certificates verify for years
 * against the JWKS alone, DECISIONS 9).
 */
export async function listPublishedSigningKeys(db: Executor, retiredAfter: Date): Promise<PublishedSigningKeyRow[]> {
  const signed = (eb: ExpressionBuilder<Database, 'signing_keys'>) =>
    eb.exists(eb.selectFrom('certificates').select(sql<number>`1`.as('one')).whereRef('certificates.kid', '=', 'signing_keys.kid'));
  const rows = await db
    .selectFrom('signing_keys')
    .selectAll()
    .select((eb) => signed(eb).as('signed_certificates'))
    .where((eb) => eb.or([eb('retired_at', 'is', null), eb('retired_at', '>', retiredAfter), signed(eb)]))
    .orderBy('created_at', 'desc')
    .orderBy('kid', 'desc')
    .execute();
  return rows.map((r) => ({ ...toRow(r), signedCertificates: r.signed_certificates === true }));
}

/** The ids of the keys that signed at least one certificate (`keys list`). */
export async function listCertificateSigningKids(db: Executor): Promise<Set<string>> {
  const rows = await db.selectFrom('certificates').select('kid').distinct().execute();
  return new Set(rows.map((r) => r.kid));
}

export async function countActiveSigningKeys(db: Executor): Promise<number> {
  const row = await db
    .selectFrom('signing_keys')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .where('retired_at', 'is', null)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export async function insertSigningKey(db: Executor, key: Omit<SigningKeyRow, 'createdAt' | 'retiredAt'>): Promise<void> {
  await db
    .insertInto('signing_keys')
    .values({
      kid: key.kid,
      alg: key.alg,
      public_jwk: JSON.stringify(key.publicJwk),
      private_key: key.privateKey,
      encrypted: key.encrypted,
    })
    .execute();
}

/** Retires every active key except `keepKid`; returns the retired key ids. */
export async function retireActiveKeysExcept(db: Executor, keepKid: string): Promise<string[]> {
  const rows = await db
    .updateTable('signing_keys')
    .set({ retired_at: sql<Date>`now()` })
    .where('retired_at', 'is', null)
    .where('kid', '<>', keepKid)
    .returning('kid')
    .execute();
  return rows.map((r) => r.kid);
}
