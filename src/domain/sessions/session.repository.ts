/**
 * Web sessions. The table holds only a SHA-256 hash of the session id the browser keeps, so a leaked
 * table or backup cannot be replayed as cookies.
 */
import { sql } from 'kysely';
import type { Executor } from '../../storage/database.js';
import { PRINCIPAL_USER_COLUMNS, principalUserOfRow, type PrincipalUser } from '../principal.js';

export interface SessionWrite {
  idHash: string;
  userId: string;
  csrfToken: string;
  expiresAt: Date;
}

/** A live session with the user it belongs to (the user's fields are those of a Principal). */
export interface SessionWithUser extends PrincipalUser {
  idHash: string;
  csrfToken: string;
  expiresAt: Date;
  /** The user holds the deployment-wide reviewer capability (docs/review.md). */
  isReviewer: boolean;
}

export async function insertSession(db: Executor, session: SessionWrite): Promise<void> {
  await db
    .insertInto('web_sessions')
    .values({ id_hash: session.idHash, user_id: session.userId, csrf_token: session.csrfToken, expires_at: session.expiresAt })
    .execute();
}

/** The session with this hash when it has not expired at `now`, with its user. */
export async function findLiveSession(db: Executor, idHash: string, now: Date): Promise<SessionWithUser | undefined> {
  const row = await db
    .selectFrom('web_sessions as s')
    .innerJoin('users as u', 'u.id', 's.user_id')
    .select(['s.id_hash', 's.csrf_token', 's.expires_at', 'u.id as user_id', 'u.organization_id', ...PRINCIPAL_USER_COLUMNS])
    .select(sql<boolean>`EXISTS (SELECT 1 FROM reviewers r WHERE r.user_id = u.id)`.as('is_reviewer'))
    .where('s.id_hash', '=', idHash)
    .where('s.expires_at', '>', now)
    .executeTakeFirst();
  if (!row) return undefined;
  return { ...principalUserOfRow(row), idHash: row.id_hash, csrfToken: row.csrf_token, expiresAt: row.expires_at, isReviewer: row.is_reviewer };
}

export async function deleteSession(db: Executor, idHash: string): Promise<void> {
  await db.deleteFrom('web_sessions').where('id_hash', '=', idHash).execute();
}

/** Removes every session that expired before `now`; returns how many. */
export async function deleteExpiredSessions(db: Executor, now: Date): Promise<number> {
  const result = await db.deleteFrom('web_sessions').where('expires_at', '<=', now).executeTakeFirst();
  return Number(result.numDeletedRows);
}
