/**
 * SQL of review claims (table `review_claims`, migration 0008). Every write happens in a transaction
 * that first locked the order's row (lockOrder), so claims, decisions and customer responses of one
 * order are serialized by that one lock.
 */
import type { Executor } from '../../storage/database.js';

export interface ClaimRow {
  order_id: string;
  claim_id: string;
  reviewer_id: string;
  reviewer_email: string;
  reviewer_name: string;
  claimed_at: Date;
  expires_at: Date;
}

export async function findClaim(db: Executor, orderId: string): Promise<ClaimRow | undefined> {
  return db
    .selectFrom('review_claims as c')
    .innerJoin('users as u', 'u.id', 'c.reviewer_id')
    .select(['c.order_id', 'c.claim_id', 'c.reviewer_id', 'u.email as reviewer_email', 'u.username as reviewer_name', 'c.claimed_at', 'c.expires_at'])
    .where('c.order_id', '=', orderId)
    .executeTakeFirst();
}

/** Takes the order's claim (replacing any previous, expired or not: the caller decided it may). */
export async function putClaim(db: Executor, claim: { orderId: string; claimId: string; reviewerId: string; now: Date; expiresAt: Date }): Promise<void> {
  await db
    .insertInto('review_claims')
    .values({ order_id: claim.orderId, claim_id: claim.claimId, reviewer_id: claim.reviewerId, claimed_at: claim.now, expires_at: claim.expiresAt })
    .onConflict((oc) =>
      oc.column('order_id').doUpdateSet({ claim_id: claim.claimId, reviewer_id: claim.reviewerId, claimed_at: claim.now, expires_at: claim.expiresAt }),
    )
    .execute();
}

/** Moves the claim's expiry; false when the claim is no longer this one. */
export async function extendClaim(db: Executor, orderId: string, claimId: string, reviewerId: string, expiresAt: Date): Promise<boolean> {
  const result = await db
    .updateTable('review_claims')
    .set({ expires_at: expiresAt })
    .where('order_id', '=', orderId)
    .where('claim_id', '=', claimId)
    .where('reviewer_id', '=', reviewerId)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** Removes this claim; false when it was not (or no longer) there. */
export async function deleteClaim(db: Executor, orderId: string, claimId: string, reviewerId: string): Promise<boolean> {
  const result = await db
    .deleteFrom('review_claims')
    .where('order_id', '=', orderId)
    .where('claim_id', '=', claimId)
    .where('reviewer_id', '=', reviewerId)
    .executeTakeFirst();
  return Number(result.numDeletedRows) === 1;
}

/** Removes whatever claim the order has (after a decision). */
export async function deleteClaimsOfOrder(db: Executor, orderId: string): Promise<void> {
  await db.deleteFrom('review_claims').where('order_id', '=', orderId).execute();
}
