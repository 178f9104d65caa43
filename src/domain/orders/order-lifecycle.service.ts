/**
 * Carries out lifecycle moves and document edits of one order, each in one transaction: lock the row,
 * check the move against lifecycle.ts, re-render the stored documents, write them only while the order is
 * still in the state the move started from, and record the move (and recorded edits) in the order's history
 * (`order_events`, src/domain/history). `order_stats` stay exact
 * because the counter triggers run in the same transaction, and concurrent moves of one order queue up on
 * the row lock (the second sees the first's result and is judged against it).
 */
import type { HumanOrderStateValue } from '../../contract/schemas.js';
import type { Db, Executor } from '../../storage/database.js';
import type { Clock } from '../time/clock.js';
import { IllegalTransitionError, canMove } from './lifecycle.js';
import { toOrderRow, type OrderRow } from './order-document.js';
import type { OrderInputT } from './order-input.schema.js';
import { insertOrderWithEvent, lockOrder, writeOrderState, type LockedOrder, type OrderAsset } from './order-lifecycle.repository.js';
import { actorColumns, fieldChanges, mergeChanges, MOVE_EVENT_TYPES, type Actor, type FieldChanges, type OrderEventInput, type OrderEventType } from '../history/order-event.js';
import { insertOrderEvent } from '../history/order-history.repository.js';

export type { Actor };

export class OrderNotFoundError extends Error {
  override name = 'OrderNotFoundError';
  constructor(readonly orderId: string) {
    super(`order ${orderId} does not exist`);
  }
}

/** The stored order as the input it was rendered from (documents are re-rendered from it). */
export function orderInputOf(order: LockedOrder): OrderInputT {
  const doc = JSON.parse(order.doc) as OrderInputT;
  return { ...doc, project_id: order.project_id, asset_preview_key: order.asset_preview_key, layers: order.layers };
}

export interface OrderChange {
  /** The state to move to (it must differ from the current one); absent: an edit only (e.g. an analysis line). */
  to?: HumanOrderStateValue;
  /** Why: the note of the recorded event (a system move's reason, the customer's message, a reviewer's note). */
  reason?: string;
  /** Only if the order is in one of these states; else IllegalTransitionError (409). */
  onlyFrom?: readonly HumanOrderStateValue[];
  /** Allows the operator-only moves of lifecycle.ts (never set from a request). */
  operator?: boolean;
  /** Edits the order's fields (analysis lines, annotations, review fields) before it is re-rendered. */
  edit?: (order: OrderInputT, locked: LockedOrder) => void;
  /**
   * The event that records the change in the order's history. A move is always recorded, as
   * `state_changed` unless this says otherwise (`responded`); a change without a move is recorded only
   * when this names its type (`analysis_completed`, `annotation_changed`): progress writes are not events.
   * The event's `changes` are the tracked fields the edit changed (history/order-event.ts), plus `changes`.
   */
  event?: OrderEventType;
  /** Entries for the event's `changes` beyond the order's own fields (e.g. the evidence of a response). */
  changes?: FieldChanges;
}

export interface OrderChangeResult {
  from: HumanOrderStateValue;
  to: HumanOrderStateValue;
  order: OrderInputT;
}

/** Applies a change inside an open transaction (the caller's, so it can join other writes). */
export async function changeOrderIn(trx: Executor, clock: Clock, orderId: string, actor: Actor, change: OrderChange): Promise<OrderChangeResult> {
  const locked = await lockOrder(trx, orderId);
  if (!locked) throw new OrderNotFoundError(orderId);
  const from = locked.order_state;
  const to = change.to ?? from;
  if (change.onlyFrom && !change.onlyFrom.includes(from)) throw new IllegalTransitionError(from, to);
  if (change.to !== undefined && !canMove(from, to, { operator: change.operator })) throw new IllegalTransitionError(from, to);
  const moved = to !== from;
  const type = change.event ?? (moved ? 'state_changed' : undefined);
  // A programming error, not a 409: the database refuses such a row too (order_events_move_check).
  if (type && MOVE_EVENT_TYPES.includes(type) !== moved) throw new Error(`a ${type} event ${moved ? 'cannot record' : 'needs'} a move (${from} → ${to})`);
  const before = orderInputOf(locked);
  const input = orderInputOf(locked);
  change.edit?.(input, locked);
  input.order_state = to;
  const row = toOrderRow(locked.organization_id, input);
  // The row lock makes this hold; the condition keeps the write honest should a caller forget the lock.
  if (!(await writeOrderState(trx, from, row))) throw new IllegalTransitionError(from, to);
  if (type) {
    await insertOrderEvent(trx, {
      order_id: orderId,
      organization_id: locked.organization_id,
      type,
      from_state: moved ? from : null,
      to_state: moved ? to : null,
      ...actorColumns(actor),
      note: change.reason ?? null,
      changes: mergeChanges(fieldChanges(before, input), change.changes),
      occurred_at: clock.now(),
    });
  }
  return { from, to, order: input };
}

/**
 * Moves and/or edits one order in a transaction of its own.
 * @throws OrderNotFoundError, IllegalTransitionError (409)
 *
 * @example
 * await changeOrder(db, clock, orderId, { kind: 'system', component: 'analysis' }, { to: 'Unsupported File', reason: 'text/plain' });
 */
export async function changeOrder(db: Db, clock: Clock, orderId: string, actor: Actor, change: OrderChange): Promise<OrderChangeResult> {
  return db.transaction().execute((trx) => changeOrderIn(trx, clock, orderId, actor, change));
}

/** The audit record of an order's creation (from NULL to its first state). */
export function creationEvent(clock: Clock, row: OrderRow, actor: Actor): OrderEventInput {
  return {
    order_id: row.order_id,
    organization_id: row.organization_id,
    type: 'created',
    from_state: null,
    to_state: row.order_state,
    ...actorColumns(actor),
    note: null,
    changes: null,
    occurred_at: clock.now(),
  };
}

/**
 * Creates an order in its first state and records the move (from NULL), in one statement of the caller's
 * transaction; call it last in that transaction (it holds the scope's counter lock until commit).
 */
export async function createOrder(trx: Executor, clock: Clock, row: OrderRow, asset: OrderAsset, actor: Actor): Promise<void> {
  await insertOrderWithEvent(trx, row, asset, creationEvent(clock, row, actor));
}

