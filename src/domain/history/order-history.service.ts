/**
 * The order history: reading it under the order's visibility, and recording the actions that change no
 * order field. Moves and edits are recorded by the lifecycle service (changeOrderIn) in the transaction of
 * the change; this module records what happens beside the order's fields (a reviewer's claim, a
 * certificate issued or revoked), also inside the caller's transaction.
 */
import type { OrderHistoryT } from '../../contract/history-schemas.js';
import type { Db, Executor } from '../../storage/database.js';
import { normalizeTimestamp } from '../orders/order-document.js';
import { lockOrder } from '../orders/order-lifecycle.repository.js';
import { canSeeOrder } from '../orders/find-visible-order.js';
import type { Principal } from '../principal.js';
import type { Clock } from '../time/clock.js';
import { actorColumns, MOVE_EVENT_TYPES, type Actor, type FieldChanges, type OrderEventType } from './order-event.js';
import { insertOrderEvent, listOrderHistory } from './order-history.repository.js';

export class OrderEventOrderNotFoundError extends Error {
  override name = 'OrderEventOrderNotFoundError';
  constructor(readonly orderId: string) {
    super(`order ${orderId} does not exist`);
  }
}

export interface OrderAction {
  /** An event type that does not move the order (moves go through changeOrderIn). */
  type: Exclude<OrderEventType, 'created' | 'state_changed' | 'responded'>;
  note?: string | null;
  /** What the action changed beside the order's fields, e.g. `{certificate_id: {before: null, after: id}}`. */
  changes?: FieldChanges | null;
}

/**
 * Records an action on an order that changes none of its fields, in the caller's transaction. It takes
 * the order's row lock (held until the transaction ends), so the event is ordered after every change
 * committed before it and before every change that follows.
 * @throws OrderEventOrderNotFoundError
 *
 * @example
 * await db.transaction().execute(async (trx) => {
 *   await claimOrder(trx, ...);
 *   await recordOrderEvent(trx, clock, orderId, reviewer, { type: 'claimed', note: null });
 * });
 */
export async function recordOrderEvent(trx: Executor, clock: Clock, orderId: string, actor: Actor, action: OrderAction): Promise<void> {
  if (MOVE_EVENT_TYPES.includes(action.type)) throw new Error(`${action.type} is a move: record it with changeOrderIn`);
  const locked = await lockOrder(trx, orderId);
  if (!locked) throw new OrderEventOrderNotFoundError(orderId);
  await insertOrderEvent(trx, {
    order_id: orderId,
    organization_id: locked.organization_id,
    type: action.type,
    from_state: null,
    to_state: null,
    ...actorColumns(actor),
    note: action.note ?? null,
    changes: action.changes && Object.keys(action.changes).length > 0 ? action.changes : null,
    occurred_at: clock.now(),
  });
}

/**
 * The history of an order the caller sees (the visibility of GET /v1/orders/{order_id}), oldest first;
 * null when the order does not exist or the caller may not see it.
 */
export async function getOrderHistory(db: Db, principal: Principal, orderId: string): Promise<OrderHistoryT | null> {
  if (!(await canSeeOrder(db, principal, orderId))) return null;
  const rows = await listOrderHistory(db, orderId);
  return {
    events: rows.map((r) => ({
      event_id: r.event_id,
      type: r.type,
      // The same text rule as every other timestamp: `.123Z` for whole milliseconds, else six digits.
      at: normalizeTimestamp(r.at_micros) ?? r.at_micros,
      actor: r.actor,
      from_state: r.from_state,
      to_state: r.to_state,
      note: r.note,
      changes: r.changes,
    })),
  };
}
