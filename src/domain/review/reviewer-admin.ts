/**
 * Operator service of the reviewer capability (`certdesk reviewer grant|revoke|list`). The capability is
 * deployment-wide: a reviewer reviews orders of every organization but their own (docs/review.md).
 */
import type { Db } from '../../storage/database.js';
import { ProvisioningError } from '../provisioning-error.js';
import type { Clock } from '../time/clock.js';
import { systemClock } from '../time/clock.js';
import { deleteClaimsOf, deleteReviewer, findUserByEmail, insertReviewer, listReviewerRows } from './reviewer.repository.js';

export interface ReviewerSummary {
  email: string;
  username: string;
  organization_id: string;
  organization_name: string;
  granted_at: string;
}

export interface ReviewerChange {
  email: string;
  /** False when nothing changed (granted twice, revoked from a non-reviewer). */
  changed: boolean;
}

async function userOf(db: Db, email: string) {
  const user = await findUserByEmail(db, email);
  if (!user) throw new ProvisioningError(`no user with e-mail ${email}`);
  return user;
}

export async function grantReviewer(db: Db, email: string, clock: Clock = systemClock): Promise<ReviewerChange> {
  const user = await userOf(db, email);
  return { email: user.email, changed: await insertReviewer(db, user.id, clock.now()) };
}

/** Revokes the capability and releases every claim the reviewer held, in one transaction. */
export async function revokeReviewer(db: Db, email: string): Promise<ReviewerChange> {
  const user = await userOf(db, email);
  const changed = await db.transaction().execute(async (trx) => {
    await deleteClaimsOf(trx, user.id);
    return deleteReviewer(trx, user.id);
  });
  return { email: user.email, changed };
}

export async function listReviewers(db: Db): Promise<ReviewerSummary[]> {
  return (await listReviewerRows(db)).map((r) => ({
    email: r.email,
    username: r.username,
    organization_id: r.organization_id,
    organization_name: r.organization_name,
    granted_at: r.granted_at.toISOString(),
  }));
}
