/**
 * Order writes. Every write goes through the `orders` table, whose statement-level triggers keep
 * `order_counters` exact inside the same transaction.
 */
import { sql } from 'kysely';
import type { Executor } from '../../storage/database.js';
import type { OrderRow } from './order-document.js';

/** Rows per INSERT statement: 11 parameters a row stays far below PostgreSQL's 65,535 bind limit. */
export const ORDER_INSERT_BATCH = 1000;

export class OrderOwnershipConflictError extends Error {
  override name = 'OrderOwnershipConflictError';
  constructor(readonly orderIds: string[]) {
    super(`order id${orderIds.length > 1 ? 's' : ''} ${orderIds.slice(0, 5).join(', ')} already belong${orderIds.length > 1 ? '' : 's'} to another organization`);
  }
}

/**
 * Inserts or updates orders by order_id. A row identical to the stored one is left untouched (loading the
 * same seed twice changes nothing, counters included). An order id owned by another organization is refused.
 * @returns how many rows were inserted or changed.
 */
export async function upsertOrders(db: Executor, rows: OrderRow[]): Promise<number> {
  let changed = 0;
  for (let i = 0; i < rows.length; i += ORDER_INSERT_BATCH) {
    const batch = rows.slice(i, i + ORDER_INSERT_BATCH);
    const ids = batch.map((r) => r.order_id);
    const foreign = await db
      .selectFrom('orders')
      .select('order_id')
      .where('order_id', 'in', ids)
      .where('organization_id', '!=', batch[0]!.organization_id)
      .execute();
    const otherOrgs = new Set(batch.map((r) => r.organization_id));
    if (foreign.length > 0 || otherOrgs.size > 1) {
      if (otherOrgs.size > 1) throw new Error('upsertOrders takes one organization per batch');
      throw new OrderOwnershipConflictError(foreign.map((f) => f.order_id));
    }
    const result = await db
      .insertInto('orders')
      .values(
        batch.map((r) => ({
          order_id: r.order_id,
          organization_id: r.organization_id,
          project_id: r.project_id,
          owner_key: r.owner_key,
          order_state: r.order_state,
          creation_time: r.creation_time,
          asset_preview_key: r.asset_preview_key,
          layers: r.layers,
          doc: r.doc,
          preview_doc: r.preview_doc,
        })),
      )
      .onConflict((oc) =>
        oc.column('order_id').doUpdateSet({
          project_id: sql`EXCLUDED.project_id`,
          owner_key: sql`EXCLUDED.owner_key`,
          order_state: sql`EXCLUDED.order_state`,
          creation_time: sql`EXCLUDED.creation_time`,
          asset_preview_key: sql`EXCLUDED.asset_preview_key`,
          layers: sql`EXCLUDED.layers`,
          doc: sql`EXCLUDED.doc`,
          preview_doc: sql`EXCLUDED.preview_doc`,
          updated_at: sql`now()`,
        }).where(sql<boolean>`(orders.doc::text, orders.preview_doc::text, orders.project_id, orders.asset_preview_key, orders.layers)
            IS DISTINCT FROM (EXCLUDED.doc::text, EXCLUDED.preview_doc::text, EXCLUDED.project_id, EXCLUDED.asset_preview_key, EXCLUDED.layers)`),
      )
      .executeTakeFirst();
    changed += Number(result.numInsertedOrUpdatedRows ?? 0n);
  }
  return changed;
}

export interface CounterDrift {
  organization_id: string;
  scope_key: string;
  order_state: string;
  stored: number;
  actual: number;
}

/**
 * Recounts orders per organization, scope and state, compares with order_counters, and (unless dryRun)
 * repairs the counters. Run it inside a transaction: the repair locks out concurrent order writes
 * while it recounts. Used by `certdesk stats recount`.
 */
export async function recountOrderCounters(db: Executor, dryRun: boolean): Promise<CounterDrift[]> {
  if (!dryRun) await sql`LOCK TABLE orders IN SHARE MODE`.execute(db);
  const drift = await sql<CounterDrift>`
    WITH actual AS (
      SELECT organization_id,
             CASE WHEN project_id IS NULL THEN 'personal:' || owner_key ELSE 'project:' || project_id::text END AS scope_key,
             order_state, count(*)::bigint AS n
      FROM orders GROUP BY 1, 2, 3
    )
    SELECT coalesce(a.organization_id, c.organization_id) AS organization_id,
           coalesce(a.scope_key, c.scope_key) AS scope_key,
           coalesce(a.order_state, c.order_state) AS order_state,
           coalesce(c.order_count, 0)::bigint AS stored, coalesce(a.n, 0)::bigint AS actual
    FROM actual a
    FULL JOIN order_counters c
      ON c.organization_id = a.organization_id AND c.scope_key = a.scope_key AND c.order_state = a.order_state
    WHERE coalesce(c.order_count, 0) <> coalesce(a.n, 0)
    ORDER BY 1, 2, 3`.execute(db);
  if (!dryRun && drift.rows.length > 0) {
    await sql`DELETE FROM order_counters`.execute(db);
    await sql`
      INSERT INTO order_counters (organization_id, scope_key, project_id, owner_key, order_state, order_count)
      SELECT organization_id,
             CASE WHEN project_id IS NULL THEN 'personal:' || owner_key ELSE 'project:' || project_id::text END,
             project_id, CASE WHEN project_id IS NULL THEN owner_key END, order_state, count(*)
      FROM orders GROUP BY 1, 2, 3, 4, 5`.execute(db);
  }
  return drift.rows;
}
