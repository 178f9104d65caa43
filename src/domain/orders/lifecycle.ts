/**
 * The order lifecycle: the one place that says which state may follow which.
 *
 *   create ──> In Progress ──(format not accepted)──────────────> Unsupported File   (final)
 *                  │  automated analysis, then a human reviewer
 *                  ├──(analysis flags regions)──> Action Required ──(customer responds)──> In Progress
 *                  ├──(reviewer certifies)──────> Human Certified                      (final)
 *                  ├──(reviewer records findings without certifying)──> Reviewed       (final)
 *                  └──(reviewer refuses, or processing fails for good)──> Failed       (final)
 *
 * One more move exists for operators only, never through the API or the web: Failed ──> In Progress, when
 * the analysis failed for a transient cause (`certdesk orders reanalyse`; OPERATOR_MOVES below).
 *
 * Any other move is refused (409). Moves are carried out by order-lifecycle.service.ts, which records each
 * one in `order_events` and re-renders the stored order documents in the same transaction.
 */
import type { HumanOrderStateValue } from '../../contract/schemas.js';
import { ApiError } from '../errors.js';

/** The state of every new order. */
export const INITIAL_STATE: HumanOrderStateValue = 'In Progress';

const MOVES: Readonly<Record<HumanOrderStateValue, readonly HumanOrderStateValue[]>> = {
  'In Progress': ['Unsupported File', 'Action Required', 'Human Certified', 'Reviewed', 'Failed'],
  'Action Required': ['In Progress'],
  'Human Certified': [],
  Reviewed: [],
  Failed: [],
  'Unsupported File': [],
};

/**
 * Moves only an operator makes (a command on the server, not a request): re-analysing an order whose
 * analysis failed for a transient cause (detection service or storage down for longer than the retries).
 * `Failed` stays final for every user and API client.
 */
const OPERATOR_MOVES: Readonly<Partial<Record<HumanOrderStateValue, readonly HumanOrderStateValue[]>>> = {
  Failed: ['In Progress'],
};

/** True when `to` may follow `from` (with `operator`, the operator-only moves too). */
export function canMove(from: HumanOrderStateValue, to: HumanOrderStateValue, options: { operator?: boolean } = {}): boolean {
  return MOVES[from].includes(to) || (options.operator === true && (OPERATOR_MOVES[from] ?? []).includes(to));
}

/** The states that may follow `from` (none for a final state). */
export function nextStates(from: HumanOrderStateValue): readonly HumanOrderStateValue[] {
  return MOVES[from];
}

export function isFinal(state: HumanOrderStateValue): boolean {
  return MOVES[state].length === 0;
}

/** A move the lifecycle does not allow: 409 `{"detail": ...}`. */
export class IllegalTransitionError extends ApiError {
  override name = 'IllegalTransitionError';
  constructor(
    readonly from: HumanOrderStateValue,
    readonly to: HumanOrderStateValue,
  ) {
    super(409, 'errors.illegal_transition', { vars: { from, to } });
  }
}
