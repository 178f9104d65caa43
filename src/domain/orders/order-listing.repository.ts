/**
 * The listing's reads: one keyset page of a scope, and the scope's per-state counts from order_counters.
 * Rows come back with the stored document text untouched (json columns are not parsed, type-parsers.ts).
 */
import { sql, type RawBuilder } from 'kysely';
import { ORDER_STATES, STATE_COUNTERS, type OrderStatsT } from '../../contract/schemas.js';
import type { Executor } from '../../storage/database.js';
import type { KeysetCursor } from '../../storage/page-token.js';
import type { StoredLayer } from '../../storage/schema.js';
import type { OrderScope } from './order-scope.js';

export interface OrderPageRow {
  order_id: string;
  project_id: string | null;
  /** creation_time in microseconds since the epoch, exact at the database's precision. */
  creation_micros: string;
  asset_preview_key: string | null;
  /** Stored layers; always empty on preview pages. */
  layers: StoredLayer[];
  /** `doc` or `preview_doc`, verbatim JSON text. */
  body: string;
}

function columns(preview: boolean): RawBuilder<unknown> {
  // micros as text: exact whatever the driver's int8 parser does. Previews show no layers: none are read.
  return sql`o.order_id, o.project_id::text AS project_id,
    ((extract(epoch FROM o.creation_time) * 1000000)::bigint)::text AS creation_micros,
    o.asset_preview_key, ${sql.raw(preview ? `'[]'::jsonb AS layers, o.preview_doc` : 'o.layers, o.doc')} AS body`;
}

/** `(creation_time, order_id)` strictly after the cursor in DESC order; true on the first page. */
function afterCursor(cursor: KeysetCursor | null): RawBuilder<unknown> {
  if (!cursor) return sql`TRUE`;
  // float8 * interval is exact for |micros| < 2^53 (about 285 years around 1970).
  return sql`(o.creation_time, o.order_id) < (timestamptz 'epoch' + ${cursor.creationTimeMicros.toString()}::bigint * interval '1 microsecond', ${cursor.orderId}::text)`;
}

const ORDER = sql`ORDER BY o.creation_time DESC, o.order_id DESC`;

/**
 * Reads up to `limit` orders of a scope after the cursor, newest first (creation_time DESC, order_id DESC).
 * Every branch has organization_id in its WHERE clause: nothing of another organization, whatever the scope.
 */
export async function fetchOrderPage(
  db: Executor,
  scope: OrderScope,
  cursor: KeysetCursor | null,
  limit: number,
  preview: boolean,
): Promise<OrderPageRow[]> {
  const cols = columns(preview);
  const after = afterCursor(cursor);
  const org = sql`o.organization_id = ${scope.organizationId}::uuid`;
  let query: RawBuilder<OrderPageRow>;
  switch (scope.kind) {
    case 'organization':
      query = sql`SELECT ${cols} FROM orders o WHERE ${org} AND ${after} ${ORDER} LIMIT ${limit}`;
      break;
    case 'personal-all':
      query = sql`SELECT ${cols} FROM orders o WHERE ${org} AND o.project_id IS NULL AND ${after} ${ORDER} LIMIT ${limit}`;
      break;
    case 'owner':
      query = sql`SELECT ${cols} FROM orders o
        WHERE ${org} AND o.project_id IS NULL AND o.owner_key = ${scope.ownerKey}::text AND ${after} ${ORDER} LIMIT ${limit}`;
      break;
    case 'project':
      query = sql`SELECT ${cols} FROM orders o
        WHERE o.project_id = ${scope.projectId}::uuid AND ${org} AND ${after} ${ORDER} LIMIT ${limit}`;
      break;
    case 'member':
      // One short index scan per visible project and one for the caller's personal orders, merged: the cost
      // follows the page size, not the size of the organization.
      query = sql`SELECT u.order_id, u.project_id, u.creation_micros, u.asset_preview_key, u.layers, u.body FROM (
          SELECT x.* FROM unnest(${`{${scope.projectIds.join(',')}}`}::uuid[]) AS p(id)
          CROSS JOIN LATERAL (
            SELECT ${cols}, o.creation_time FROM orders o
            WHERE o.project_id = p.id AND ${org} AND ${after} ${ORDER} LIMIT ${limit}) x
          UNION ALL
          (SELECT ${cols}, o.creation_time FROM orders o
            WHERE ${org} AND o.project_id IS NULL AND o.owner_key = ${scope.ownerKey}::text AND ${after} ${ORDER} LIMIT ${limit})
        ) u ORDER BY u.creation_time DESC, u.order_id COLLATE "C" DESC LIMIT ${limit}`;
      break;
  }
  return (await query.execute(db)).rows;
}

/** order_stats of a scope, summed from order_counters (never by counting orders). */
export async function sumOrderCounters(db: Executor, scope: OrderScope): Promise<OrderStatsT> {
  const org = sql`c.organization_id = ${scope.organizationId}::uuid`;
  let where: RawBuilder<unknown>;
  switch (scope.kind) {
    case 'organization':
      where = org;
      break;
    case 'personal-all':
      where = sql`${org} AND c.project_id IS NULL`;
      break;
    case 'owner':
      where = sql`${org} AND c.scope_key = ${`personal:${scope.ownerKey}`}::text`;
      break;
    case 'project':
      where = sql`${org} AND c.scope_key = ${`project:${scope.projectId}`}::text`;
      break;
    case 'member':
      where = sql`${org} AND (c.project_id = ANY(${`{${scope.projectIds.join(',')}}`}::uuid[]) OR c.scope_key = ${`personal:${scope.ownerKey}`}::text)`;
      break;
  }
  const result = await sql<{ order_state: string; n: number }>`
    SELECT c.order_state, sum(c.order_count)::bigint AS n FROM order_counters c WHERE ${where} GROUP BY c.order_state`.execute(db);
  const stats: OrderStatsT = {
    total_in_progress: 0,
    total_certified: 0,
    total_action_required: 0,
    total_reviewed: 0,
    total_failed: 0,
    total_unsupported: 0,
    total_orders: 0,
  };
  for (const row of result.rows) {
    const counter = STATE_COUNTERS[row.order_state as (typeof ORDER_STATES)[number]];
    if (!counter) continue;
    stats[counter] += row.n;
    stats.total_orders += row.n;
  }
  return stats;
}

export interface SingleOrderRow extends OrderPageRow {
  organization_id: string;
  owner_key: string;
}

/** One order by id within an organization (visibility is checked by the caller). */
export async function findOrderRow(db: Executor, organizationId: string, orderId: string): Promise<SingleOrderRow | undefined> {
  const result = await sql<SingleOrderRow>`
    SELECT ${columns(false)}, o.organization_id::text AS organization_id, o.owner_key
    FROM orders o WHERE o.order_id = ${orderId}::text AND o.organization_id = ${organizationId}::uuid`.execute(db);
  return result.rows[0];
}
