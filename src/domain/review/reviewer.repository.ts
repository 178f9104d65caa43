/** SQL of the reviewer capability (table `reviewers`, migration 0008). */
import type { Executor } from '../../storage/database.js';

export interface ReviewerRow {
  user_id: string;
  email: string;
  username: string;
  organization_id: string;
  organization_name: string;
  granted_at: Date;
}

/** The user with this e-mail (case-insensitive), or undefined. */
export async function findUserByEmail(db: Executor, email: string): Promise<{ id: string; email: string } | undefined> {
  return db.selectFrom('users').select(['id', 'email']).where('email_key', '=', email.toLowerCase()).executeTakeFirst();
}

/** Grants the capability; false when the user had it already (the first grant's time is kept). */
export async function insertReviewer(db: Executor, userId: string, now: Date): Promise<boolean> {
  const result = await db
    .insertInto('reviewers')
    .values({ user_id: userId, granted_at: now })
    .onConflict((oc) => oc.column('user_id').doNothing())
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0n) === 1;
}

/** Revokes the capability; false when the user did not have it. */
export async function deleteReviewer(db: Executor, userId: string): Promise<boolean> {
  const result = await db.deleteFrom('reviewers').where('user_id', '=', userId).executeTakeFirst();
  return Number(result.numDeletedRows) === 1;
}

/** Every reviewer with their organization, by e-mail. */
export async function listReviewerRows(db: Executor): Promise<ReviewerRow[]> {
  return db
    .selectFrom('reviewers as r')
    .innerJoin('users as u', 'u.id', 'r.user_id')
    .innerJoin('organizations as o', 'o.id', 'u.organization_id')
    .select(['r.user_id', 'u.email', 'u.username', 'u.organization_id', 'o.name as organization_name', 'r.granted_at'])
    .orderBy('u.email_key')
    .execute();
}

export async function isReviewer(db: Executor, userId: string): Promise<boolean> {
  return (await db.selectFrom('reviewers').select('user_id').where('user_id', '=', userId).executeTakeFirst()) !== undefined;
}

/** Drops the reviewer's claims (a revoked reviewer holds nothing). */
export async function deleteClaimsOf(db: Executor, userId: string): Promise<void> {
  await db.deleteFrom('review_claims').where('reviewer_id', '=', userId).execute();
}
