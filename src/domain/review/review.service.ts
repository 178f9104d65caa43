/**
 * The reviewer's actions on one order (docs/review.md): open it (claiming it for CLAIM_TTL_MS), renew or
 * release the claim, save edits of annotations, `remediation` and `confidence`, and decide. Each runs in one
 * transaction that first locks the order's row, so two reviewers, a double submit or a customer's response
 * racing a decision queue up on that lock and the later one is judged against the earlier one's result:
 * one wins, the others get 409 with nothing applied.
 */
import { randomUUID } from 'node:crypto';
import type { AnnotationT, HumanOrderStateValue } from '../../contract/schemas.js';
import type { Db, Executor } from '../../storage/database.js';
import { CertificateNotFoundError, findCertificateByOrder, revokeCertificate, type CertificateRow } from '../certificates/index.js';
import { NotFoundError } from '../errors.js';
import { lockOrder, type LockedOrder } from '../orders/order-lifecycle.repository.js';
import { changeOrderIn, orderInputOf, type Actor } from '../orders/order-lifecycle.service.js';
import type { Clock } from '../time/clock.js';
import { normalizeUuid } from '../uuid.js';
import type { CertificateIssuer } from './certificate-seam.js';
import { deleteClaim, deleteClaimsOfOrder, extendClaim, findClaim, putClaim, type ClaimRow } from './review-claim.repository.js';
import { ClaimedByOtherError, ClaimLostError, NotInReviewError, OwnOrganizationError } from './review-errors.js';
import { recordClaim } from './review-history.js';
import { analysisPending } from './review-queue.repository.js';

/** How long opening (or renewing) an order claims it. */
export const CLAIM_TTL_MS = 15 * 60 * 1000;

export interface Reviewer {
  userId: string;
  organizationId: string;
  email: string;
  username: string;
}

export interface ReviewDeps {
  db: Db;
  clock: Clock;
  issueCertificate: CertificateIssuer;
  claimTtlMs?: number;
}

export const DECISIONS = {
  certify: 'Human Certified',
  record_findings: 'Reviewed',
  ask_for_evidence: 'Action Required',
  refuse: 'Failed',
} as const satisfies Record<string, HumanOrderStateValue>;
export type Decision = keyof typeof DECISIONS;

export function isDecision(value: unknown): value is Decision {
  return typeof value === 'string' && Object.prototype.hasOwnProperty.call(DECISIONS, value);
}

export interface ClaimView {
  claimId: string;
  expiresAt: Date;
}

/** Opening an order: either this reviewer's claim, another's live claim, or no claim (not reviewable now). */
export interface OpenResult {
  organizationId: string;
  state: HumanOrderStateValue;
  claim: ClaimView | null;
  heldBy: { name: string; email: string; expiresAt: Date } | null;
  /** The analysis is still running: the order is not in the queue yet. */
  analysisRunning: boolean;
}

function actorOf(reviewer: Reviewer): Actor {
  return { kind: 'user', userId: reviewer.userId, email: reviewer.email, clientId: null };
}

function ttl(deps: ReviewDeps): number {
  return deps.claimTtlMs ?? CLAIM_TTL_MS;
}

/** The locked order, refusing unknown orders (404) and the reviewer's own organization (403). */
async function lockForReviewer(trx: Executor, reviewer: Reviewer, orderId: string): Promise<LockedOrder> {
  const order = await lockOrder(trx, orderId);
  if (!order) throw new NotFoundError('errors.order_not_found');
  if (order.organization_id === reviewer.organizationId) throw new OwnOrganizationError();
  return order;
}

/** The claim named by `claimId` must be the order's current claim and this reviewer's. */
function checkClaim(claim: ClaimRow | undefined, reviewer: Reviewer, claimId: string, now: Date): void {
  if (claim && claim.claim_id === normalizeUuid(claimId) && claim.reviewer_id === reviewer.userId) return;
  if (claim && claim.reviewer_id !== reviewer.userId && claim.expires_at > now) throw new ClaimedByOtherError(claim.reviewer_name);
  throw new ClaimLostError();
}

/**
 * Opens an order for review: claims it when it is in the queue and not claimed by someone else (recorded
 * as a `claimed` event); a reviewer opening their own live claim again renews it.
 * @throws NotFoundError, OwnOrganizationError
 */
export async function openForReview(deps: ReviewDeps, reviewer: Reviewer, orderId: string): Promise<OpenResult> {
  return deps.db.transaction().execute(async (trx) => {
    const order = await lockForReviewer(trx, reviewer, orderId);
    const base = { organizationId: order.organization_id, state: order.order_state, claim: null, heldBy: null, analysisRunning: false };
    if (order.order_state !== 'In Progress') return base;
    if (await analysisPending(trx, orderId)) return { ...base, analysisRunning: true };
    const now = deps.clock.now();
    const expiresAt = new Date(now.getTime() + ttl(deps));
    const current = await findClaim(trx, orderId);
    if (current && current.expires_at > now) {
      if (current.reviewer_id !== reviewer.userId) {
        return { ...base, heldBy: { name: current.reviewer_name, email: current.reviewer_email, expiresAt: current.expires_at } };
      }
      await extendClaim(trx, orderId, current.claim_id, reviewer.userId, expiresAt);
      return { ...base, claim: { claimId: current.claim_id, expiresAt } };
    }
    const claimId = randomUUID();
    await putClaim(trx, { orderId, claimId, reviewerId: reviewer.userId, now, expiresAt });
    await recordClaim(trx, deps.clock, orderId, reviewer);
    return { ...base, claim: { claimId, expiresAt } };
  });
}

/**
 * Renews the reviewer's claim for another CLAIM_TTL_MS (the open page calls it). A claim that ran out is
 * renewed too as long as nobody else took the order meanwhile.
 * @throws NotFoundError, OwnOrganizationError, ClaimedByOtherError, ClaimLostError, NotInReviewError
 */
export async function renewClaim(deps: ReviewDeps, reviewer: Reviewer, orderId: string, claimId: string): Promise<ClaimView> {
  return deps.db.transaction().execute(async (trx) => {
    const order = await lockForReviewer(trx, reviewer, orderId);
    const now = deps.clock.now();
    checkClaim(await findClaim(trx, orderId), reviewer, claimId, now);
    if (order.order_state !== 'In Progress') throw new NotInReviewError(order.order_state);
    const expiresAt = new Date(now.getTime() + ttl(deps));
    const id = normalizeUuid(claimId)!;
    await extendClaim(trx, orderId, id, reviewer.userId, expiresAt);
    return { claimId: id, expiresAt };
  });
}

/** Releases the reviewer's claim (others may take the order at once); false when it was not held. */
export async function releaseClaim(deps: ReviewDeps, reviewer: Reviewer, orderId: string, claimId: string): Promise<boolean> {
  return deps.db.transaction().execute(async (trx) => {
    await lockForReviewer(trx, reviewer, orderId);
    const id = normalizeUuid(claimId);
    return id !== null && deleteClaim(trx, orderId, id, reviewer.userId);
  });
}

export interface ReviewEdits {
  annotations?: AnnotationT[];
  remediation?: number;
  confidence?: number;
}

export interface SavedEdits {
  annotations: AnnotationT[];
  remediation: number;
  confidence: number;
}

/**
 * Saves the reviewer's edits into the order (the API's `annotations`, `remediation`, `confidence` show
 * them at once) and records an `annotation_changed` event with each changed field's before and after.
 * @throws NotFoundError, OwnOrganizationError, ClaimedByOtherError, ClaimLostError, NotInReviewError
 */
export async function saveEdits(deps: ReviewDeps, reviewer: Reviewer, orderId: string, claimId: string, edits: ReviewEdits): Promise<SavedEdits> {
  return deps.db.transaction().execute(async (trx) => {
    const order = await lockForReviewer(trx, reviewer, orderId);
    checkClaim(await findClaim(trx, orderId), reviewer, claimId, deps.clock.now());
    if (order.order_state !== 'In Progress') throw new NotInReviewError(order.order_state);
    // Recorded as `annotation_changed` with each changed field's before and after; a save that changes
    // nothing writes nothing (no empty event).
    const current = orderInputOf(order);
    const saved = { annotations: current.annotations ?? [], remediation: current.remediation ?? 0, confidence: current.confidence ?? 0 };
    const differs = (['annotations', 'remediation', 'confidence'] as const).some((f) => edits[f] !== undefined && JSON.stringify(edits[f]) !== JSON.stringify(saved[f]));
    if (!differs) return saved;
    const result = await changeOrderIn(trx, deps.clock, orderId, actorOf(reviewer), {
      onlyFrom: ['In Progress'],
      event: 'annotation_changed',
      edit: (input) => {
        if (edits.annotations !== undefined) input.annotations = edits.annotations;
        if (edits.remediation !== undefined) input.remediation = edits.remediation;
        if (edits.confidence !== undefined) input.confidence = edits.confidence;
      },
    });
    return { annotations: result.order.annotations ?? [], remediation: result.order.remediation ?? 0, confidence: result.order.confidence ?? 0 };
  });
}

/** The locked order, when this reviewer may decide it now (their live claim, still `In Progress`). */
async function lockDecidable(trx: Executor, deps: ReviewDeps, reviewer: Reviewer, orderId: string, claimId: string): Promise<{ order: LockedOrder; now: Date }> {
  const order = await lockForReviewer(trx, reviewer, orderId);
  const now = deps.clock.now();
  checkClaim(await findClaim(trx, orderId), reviewer, claimId, now);
  if (order.order_state !== 'In Progress') throw new NotInReviewError(order.order_state);
  return { order, now };
}

export interface DecisionResult {
  from: HumanOrderStateValue;
  to: HumanOrderStateValue;
}

/**
 * Applies a decision: the move, `reviewed_by`/`review_timestamp` (all but `ask_for_evidence`), the note in
 * the move's history event, the certificate for `certify`, and the claim's release, all in one transaction.
 * @throws NotFoundError, OwnOrganizationError (403), ClaimedByOtherError, ClaimLostError, NotInReviewError (409)
 */
export async function decide(deps: ReviewDeps, reviewer: Reviewer, orderId: string, request: { decision: Decision; note: string; claimId: string }): Promise<DecisionResult> {
  // Checked first: a refused decision (404, 403, 409) neither hashes the asset nor writes anything.
  await deps.db.transaction().execute((trx) => lockDecidable(trx, deps, reviewer, orderId, request.claimId));
  // Slow preparation of the certificate (the asset's digest, recorded only by `issue`) before the row is locked.
  const prepared = request.decision === 'certify' ? await deps.issueCertificate.prepare(orderId) : null;
  return deps.db.transaction().execute(async (trx) => {
    const { order, now } = await lockDecidable(trx, deps, reviewer, orderId, request.claimId);
    const to = DECISIONS[request.decision];
    const setsReview = request.decision !== 'ask_for_evidence';
    const moved = await changeOrderIn(trx, deps.clock, orderId, actorOf(reviewer), {
      to,
      onlyFrom: ['In Progress'],
      reason: request.note,
      edit: (input) => {
        if (!setsReview) return;
        input.reviewed_by = reviewer.email;
        input.review_timestamp = now.toISOString();
      },
    });
    if (request.decision === 'certify') {
      await deps.issueCertificate.issue(trx, { orderId, organizationId: order.organization_id, reviewer: { userId: reviewer.userId, email: reviewer.email }, issuedAt: now, prepared });
    }
    await deleteClaimsOfOrder(trx, orderId);
    return { from: moved.from, to: moved.to };
  });
}

/**
 * A reviewer revokes the certificate of an order (docs/review.md "Revoking a certificate"): final, with a
 * reason, recorded as `certificate_revoked` by the reviewer's e-mail; the order keeps its state. No claim is
 * needed (the order is no longer in review), but separation of duties holds: never a certificate of the
 * reviewer's own organization. The certificate's row is locked first (revokeCertificate), as every
 * revocation does, so two revocations queue up and the second is 409.
 * @throws CertificateNotFoundError (404: no such order or no certificate), OwnOrganizationError (403),
 *   CertificateAlreadyRevokedError (409), InvalidRevocationReasonError (422)
 */
export async function revokeOrderCertificate(deps: ReviewDeps, reviewer: Reviewer, orderId: string, reason: string): Promise<CertificateRow> {
  return deps.db.transaction().execute(async (trx) => {
    const certificate = await findCertificateByOrder(trx, orderId);
    if (!certificate) throw new CertificateNotFoundError();
    if (certificate.organization_id === reviewer.organizationId) throw new OwnOrganizationError();
    return revokeCertificate(trx, deps.clock, certificate.certificate_id, reason, actorOf(reviewer));
  });
}

/** The certificate of an order a reviewer may see (not of their own organization), or null. */
export async function reviewCertificateOf(db: Executor, reviewer: Reviewer, orderId: string): Promise<CertificateRow | null> {
  const certificate = await findCertificateByOrder(db, orderId);
  return certificate && certificate.organization_id !== reviewer.organizationId ? certificate : null;
}
