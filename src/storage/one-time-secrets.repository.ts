/**
 * SQL of the web's one-time secrets (table `one_time_secrets`, migrations/0010): what
 * src/web/one-time-secrets.ts seals is stored, taken once, and swept when expired.
 */
import type { Executor } from './database.js';

export interface OneTimeSecretRow {
  ticketHash: string;
  purpose: string;
  owner: string;
  sealed: string;
  expiresAt: Date;
}

/** Stores one sealed value; first removes every expired one (of any purpose): unshown tickets do not pile up. */
export async function insertOneTimeSecret(db: Executor, row: OneTimeSecretRow, now: Date): Promise<void> {
  await db.deleteFrom('one_time_secrets').where('expires_at', '<=', now).execute();
  await db
    .insertInto('one_time_secrets')
    .values({ ticket_hash: row.ticketHash, purpose: row.purpose, owner: row.owner, sealed: row.sealed, expires_at: row.expiresAt })
    .execute();
}

/**
 * Deletes and returns the row of this ticket, purpose and owner: one DELETE, so of two instances taking the
 * same ticket at once only one gets it. Another owner's ticket is left where it is (and found by nobody).
 */
export async function takeOneTimeSecret(db: Executor, ticketHash: string, purpose: string, owner: string): Promise<{ sealed: string; expiresAt: Date } | undefined> {
  const row = await db
    .deleteFrom('one_time_secrets')
    .where('ticket_hash', '=', ticketHash)
    .where('purpose', '=', purpose)
    .where('owner', '=', owner)
    .returning(['sealed', 'expires_at'])
    .executeTakeFirst();
  return row ? { sealed: row.sealed, expiresAt: row.expires_at } : undefined;
}
