/** SQL of `c2pa_signers` (migrations/0019): the chains that sign Content Credentials. One advisory lock orders changes. */
import { sql, type Transaction } from 'kysely';
import type { Db, Executor } from '../../storage/database.js';
import type { Database } from '../../storage/schema.js';

export interface C2paSignerRow {
  signer_id: string;
  source: 'generated' | 'operator';
  chain_pem: string;
  anchor_pem: string;
  leaf_private_key: string | null;
  root_private_key: string | null;
  encrypted: boolean;
  created_at: Date;
  retired_at: Date | null;
}

// An arbitrary constant naming "the C2PA signers" among PostgreSQL advisory locks.
const C2PA_SIGNERS_LOCK = 7_215_640_419n;

/** Runs `fn` in a transaction holding the C2PA signers' lock: instances starting together make one chain. */
export async function withC2paSignersLock<T>(db: Db, fn: (trx: Transaction<Database>) => Promise<T>): Promise<T> {
  return db.transaction().execute(async (trx) => {
    await sql`SELECT pg_advisory_xact_lock(${C2PA_SIGNERS_LOCK})`.execute(trx);
    return fn(trx);
  });
}

export async function findCurrentC2paSigner(db: Executor): Promise<C2paSignerRow | undefined> {
  return db.selectFrom('c2pa_signers').selectAll().where('retired_at', 'is', null).executeTakeFirst();
}

export async function findC2paSigner(db: Executor, signerId: string): Promise<C2paSignerRow | undefined> {
  return db.selectFrom('c2pa_signers').selectAll().where('signer_id', '=', signerId).executeTakeFirst();
}

/** The newest generated chain (current or retired): reused when an operator's chain is removed again. */
export async function findLatestGeneratedC2paSigner(db: Executor): Promise<C2paSignerRow | undefined> {
  return db.selectFrom('c2pa_signers').selectAll().where('source', '=', 'generated').orderBy('created_at', 'desc').limit(1).executeTakeFirst();
}

export async function retireC2paSigners(trx: Executor): Promise<void> {
  await trx.updateTable('c2pa_signers').set({ retired_at: sql<Date>`now()` }).where('retired_at', 'is', null).execute();
}

export async function reinstateC2paSigner(trx: Executor, signerId: string): Promise<void> {
  await trx.updateTable('c2pa_signers').set({ retired_at: null }).where('signer_id', '=', signerId).execute();
}

export async function insertC2paSigner(trx: Executor, row: Omit<C2paSignerRow, 'created_at' | 'retired_at'>): Promise<void> {
  await trx.insertInto('c2pa_signers').values(row).execute();
}

/**
 * The anchors published at `/.well-known/c2pa-trust-anchors.pem`: the current chain's, and every retired
 * chain's that signed a credentialed file, oldest first, each once.
 */
export async function listPublishedTrustAnchors(db: Executor): Promise<string[]> {
  const result = await sql<{ anchor_pem: string }>`
    SELECT anchor_pem FROM c2pa_signers s
    WHERE s.retired_at IS NULL OR EXISTS (SELECT 1 FROM certificates c WHERE c.content_credentials_signer = s.signer_id)
    GROUP BY anchor_pem ORDER BY min(created_at)`.execute(db);
  return result.rows.map((r) => r.anchor_pem);
}
