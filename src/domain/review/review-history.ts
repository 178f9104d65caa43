/**
 * SEAM (history branch): records reviewer actions that are not state moves (`claimed`,
 * `annotation_changed`) in the order's audit trail. The order-history work (order_events gaining
 * `type`, `note` and `changes`, migration 0005) brings the real write API; until it is merged here, the
 * event is stored in today's order_events columns: from_state = to_state = the order's state (no move),
 * and `reason` = JSON `{"type", "note"?, "changes"?}`. Replace the body of recordReviewEvent with the
 * history API's call after the merge; callers do not change.
 */
import type { HumanOrderStateValue } from '../../contract/schemas.js';
import type { Executor } from '../../storage/database.js';
import { insertOrderEvent } from '../orders/order-lifecycle.repository.js';
import type { Clock } from '../time/clock.js';

export type ReviewEventType = 'claimed' | 'annotation_changed';

export interface ReviewEvent {
  type: ReviewEventType;
  orderId: string;
  organizationId: string;
  /** The order's state (unchanged by these events). */
  state: HumanOrderStateValue;
  reviewer: { userId: string; email: string };
  note?: string | null;
  /** For annotation_changed: `{field: {before, after}}` for every field that changed. */
  changes?: Record<string, { before: unknown; after: unknown }> | null;
}

export async function recordReviewEvent(trx: Executor, clock: Clock, event: ReviewEvent): Promise<void> {
  await insertOrderEvent(trx, {
    order_id: event.orderId,
    organization_id: event.organizationId,
    from_state: event.state,
    to_state: event.state,
    actor_kind: 'user',
    actor_id: event.reviewer.userId,
    actor_label: event.reviewer.email,
    reason: JSON.stringify({ type: event.type, ...(event.note ? { note: event.note } : {}), ...(event.changes ? { changes: event.changes } : {}) }),
    occurred_at: clock.now(),
  });
}
