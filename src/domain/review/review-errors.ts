/** Refusals of review actions, each an ApiError (status + translated message). */
import { ApiError } from '../errors.js';

/** Separation of duties: a reviewer never reviews or decides an order of their own organization (403). */
export class OwnOrganizationError extends ApiError {
  override name = 'OwnOrganizationError';
  constructor() {
    super(403, 'errors.review_own_organization');
  }
}

/** Another reviewer holds a live claim on the order (409). */
export class ClaimedByOtherError extends ApiError {
  override name = 'ClaimedByOtherError';
  constructor(readonly reviewerName: string) {
    super(409, 'errors.review_claimed_by', { vars: { name: reviewerName } });
  }
}

/** The claim the request names is not the order's claim any more (decided, released, taken over): 409. */
export class ClaimLostError extends ApiError {
  override name = 'ClaimLostError';
  constructor() {
    super(409, 'errors.review_claim_lost');
  }
}

/** The order left the queue meanwhile (decided, asked for evidence): 409. */
export class NotInReviewError extends ApiError {
  override name = 'NotInReviewError';
  constructor(readonly state: string) {
    super(409, 'errors.review_not_in_review', { vars: { state } });
  }
}
