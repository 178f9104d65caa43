/**
 * SQL of the order history: write events (always inside the transaction of the change they record), read
 * an order's events oldest first. Events are ordered by their bigserial id, the order in which they were
 * recorded: every writer holds the order's row lock (or creates the row), so the ids of one order's
 * events follow its changes even when the clocks of two processes disagree.
 */
import { sql } from 'kysely';
import type { Executor } from '../../storage/database.js';
import type { FieldChanges, OrderEventInput, OrderEventType } from './order-event.js';
import type { HumanOrderStateValue } from '../../contract/schemas.js';

/** The columns an insert names, in the order of orderEventValues (for statements that insert events with SQL of their own). */
export const ORDER_EVENT_COLUMNS = sql.raw(
  'order_id, organization_id, type, from_state, to_state, actor_kind, actor_id, actor, actor_client_id, note, changes, occurred_at',
);

/** The values of ORDER_EVENT_COLUMNS after order_id, as typed SQL parameters (for `INSERT ... SELECT`). */
export function orderEventValues(event: OrderEventInput) {
  return sql`${event.organization_id}::uuid, ${event.type}::text, ${event.from_state}::text, ${event.to_state}::text,
    ${event.actor_kind}::text, ${event.actor_id}::text, ${event.actor}::text, ${event.actor_client_id}::text, ${event.note}::text,
    ${event.changes ? JSON.stringify(event.changes) : null}::jsonb, ${event.occurred_at}::timestamptz`;
}

export async function insertOrderEvent(trx: Executor, event: OrderEventInput): Promise<void> {
  await sql`INSERT INTO order_events (${ORDER_EVENT_COLUMNS}) VALUES (${event.order_id}::text, ${orderEventValues(event)})`.execute(trx);
}

/** A stored event, as read back (tests and operators). */
export interface OrderEventRow extends Omit<OrderEventInput, 'changes'> {
  id: number;
  event_id: string;
  changes: FieldChanges | null;
}

/** The events of one order, oldest first, every column. */
export async function listOrderEvents(db: Executor, orderId: string): Promise<OrderEventRow[]> {
  const rows = await db
    .selectFrom('order_events')
    .select(['id', 'event_id', 'order_id', 'organization_id', 'type', 'from_state', 'to_state', 'actor_kind', 'actor_id', 'actor', 'actor_client_id', 'note', 'changes', 'occurred_at'])
    .where('order_id', '=', orderId)
    .orderBy('id')
    .execute();
  return rows.map((r) => ({ ...r, id: Number(r.id), type: r.type as OrderEventType, from_state: r.from_state as HumanOrderStateValue | null, to_state: r.to_state as HumanOrderStateValue | null }));
}

/** An event as the history shows it; `at` is UTC at the database's microsecond precision. */
export interface HistoryEventRow {
  event_id: string;
  type: OrderEventType;
  at_micros: string;
  actor: string;
  from_state: HumanOrderStateValue | null;
  to_state: HumanOrderStateValue | null;
  note: string | null;
  changes: FieldChanges | null;
}

/** The history of one order, oldest first (the caller has checked that the order is visible). */
export async function listOrderHistory(db: Executor, orderId: string): Promise<HistoryEventRow[]> {
  const result = await sql<HistoryEventRow>`
    SELECT event_id::text AS event_id, type,
           to_char(occurred_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS at_micros,
           actor, from_state, to_state, note, changes
    FROM order_events WHERE order_id = ${orderId}::text ORDER BY id`.execute(db);
  return result.rows;
}
