/**
 * SQL of the order lifecycle: lock one order, write its re-rendered documents only if it is still in the
 * state the move started from, insert a new order with its creation event. Counters follow through the
 * `orders` triggers (migrations/0001), in the same transaction. The events are the order history's
 * (src/domain/history).
 */
import { sql } from 'kysely';
import type { HumanOrderStateValue } from '../../contract/schemas.js';
import type { Executor } from '../../storage/database.js';
import type { StoredLayer } from '../../storage/schema.js';
import type { OrderRow } from './order-document.js';
import type { OrderEventInput } from '../history/order-event.js';
import { ORDER_EVENT_COLUMNS, orderEventValues } from '../history/order-history.repository.js';

export interface LockedOrder {
  order_id: string;
  organization_id: string;
  project_id: string | null;
  owner_key: string;
  order_state: HumanOrderStateValue;
  asset_preview_key: string | null;
  layers: StoredLayer[];
  /** The stored `doc`, JSON text. */
  doc: string;
  asset_key: string | null;
  asset_content_type: string | null;
  asset_size: number | null;
}

const ORDER_COLUMNS = sql`order_id, organization_id::text AS organization_id, project_id::text AS project_id, owner_key, order_state,
  asset_preview_key, layers, doc, asset_key, asset_content_type, asset_size`;

/** Reads an order and locks its row until the transaction ends (concurrent moves queue up behind it). */
export async function lockOrder(trx: Executor, orderId: string): Promise<LockedOrder | undefined> {
  const result = await sql<LockedOrder>`SELECT ${ORDER_COLUMNS} FROM orders WHERE order_id = ${orderId}::text FOR UPDATE`.execute(trx);
  return result.rows[0];
}

/** Reads an order without locking it (any organization: callers are the system, e.g. analysis). */
export async function readOrder(db: Executor, orderId: string): Promise<LockedOrder | undefined> {
  const result = await sql<LockedOrder>`SELECT ${ORDER_COLUMNS} FROM orders WHERE order_id = ${orderId}::text`.execute(db);
  return result.rows[0];
}

/**
 * Writes an order's re-rendered state and documents, but only while it is still in `fromState`.
 * @returns false when the order moved meanwhile (nothing written).
 */
export async function writeOrderState(trx: Executor, fromState: HumanOrderStateValue, row: OrderRow): Promise<boolean> {
  const result = await trx
    .updateTable('orders')
    .set({
      order_state: row.order_state,
      asset_preview_key: row.asset_preview_key,
      layers: row.layers,
      doc: row.doc,
      preview_doc: row.preview_doc,
      updated_at: sql`now()`,
    })
    .where('order_id', '=', row.order_id)
    .where('order_state', '=', fromState)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

export interface OrderAsset {
  key: string;
  contentType: string;
  size: number;
}

/**
 * The one INSERT of a new order and its creation event, as data-modifying CTEs: `created` inserts the
 * order (one row per row of `source`, a CTE of the caller's statement, or exactly one without it), and the
 * event is inserted for what `created` returned. Callers prepend their own CTEs (the intake claims the
 * upload and queues the analysis first) and append nothing: the statement returns the new order's id, or
 * no row when `source` was empty.
 */
export function newOrderStatementSql(row: OrderRow, asset: OrderAsset, event: OrderEventInput, source: string | null) {
  const from = source === null ? sql`` : sql`FROM ${sql.table(source)}`;
  return sql`created AS (
      INSERT INTO orders (order_id, organization_id, project_id, owner_key, order_state, creation_time, asset_preview_key,
                          layers, doc, preview_doc, asset_key, asset_content_type, asset_size)
      SELECT ${row.order_id}::text, ${row.organization_id}::uuid, ${row.project_id}::uuid, ${row.owner_key}::text,
             ${row.order_state}::text, ${row.creation_time}::timestamptz, ${row.asset_preview_key}::text, ${row.layers}::jsonb,
             ${row.doc}::json, ${row.preview_doc}::json, ${asset.key}::text, ${asset.contentType}::text, ${asset.size}::bigint
      ${from}
      RETURNING order_id
    )
    INSERT INTO order_events (${ORDER_EVENT_COLUMNS})
    SELECT created.order_id, ${orderEventValues(event)}
    FROM created
    RETURNING order_id`;
}

/**
 * Inserts a new order and its creation event in one statement (newOrderStatementSql). The insert takes the
 * scope's counter row lock (the counter trigger) until commit, so creation does it last and in one round
 * trip: concurrent creations in one scope wait on each other for as short a time as possible.
 */
export async function insertOrderWithEvent(trx: Executor, row: OrderRow, asset: OrderAsset, event: OrderEventInput): Promise<void> {
  await sql`WITH ${newOrderStatementSql(row, asset, event, null)}`.execute(trx);
}

// The events themselves belong to the order history (src/domain/history); re-exported for the lifecycle's callers.
export { insertOrderEvent, listOrderEvents, type OrderEventRow } from '../history/order-history.repository.js';
export type { OrderEventInput } from '../history/order-event.js';
