/**
 * The listing's reads: one keyset page of a scope, and the scope's per-state counts from order_counters.
 * Rows come back with the stored document text untouched (json columns are not parsed, type-parsers.ts).
 */
import { sql, type RawBuilder } from 'kysely';
import { ORDER_STATES, STATE_COUNTERS, type OrderStatsT } from '../../contract/schemas.js';
import { arrayLiteral } from '../../storage/array-literal.js';
import type { Executor } from '../../storage/database.js';
import type { KeysetCursor } from '../../storage/page-token.js';
import type { StoredLayer } from '../../storage/schema.js';
import type { Principal } from '../principal.js';
import type { OrderScope } from './order-scope.js';
import { PageVersions } from './page-versions.js';
import { parseVisibleProjects, visibleProjectsJson } from './visible-projects.repository.js';

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
 * The keyset page query of a scope: `limit` rows after the cursor, newest first (creation_time DESC,
 * order_id DESC), each with `cols`; `outer` picks the merged columns of the member scope (which adds
 * creation_time to `cols`).
 * Every branch has organization_id in its WHERE clause: nothing of another organization, whatever the scope.
 */
function pageQuery<Row>(scope: OrderScope, cols: RawBuilder<unknown>, outer: RawBuilder<unknown>, cursor: KeysetCursor | null, limit: number): RawBuilder<Row> {
  const after = afterCursor(cursor);
  const org = sql`o.organization_id = ${scope.organizationId}::uuid`;
  switch (scope.kind) {
    case 'organization':
      return sql`SELECT ${cols} FROM orders o WHERE ${org} AND ${after} ${ORDER} LIMIT ${limit}`;
    case 'personal-all':
      return sql`SELECT ${cols} FROM orders o WHERE ${org} AND o.project_id IS NULL AND ${after} ${ORDER} LIMIT ${limit}`;
    case 'owner':
      return sql`SELECT ${cols} FROM orders o
        WHERE ${org} AND o.project_id IS NULL AND o.owner_key = ${scope.ownerKey}::text AND ${after} ${ORDER} LIMIT ${limit}`;
    case 'project':
      return sql`SELECT ${cols} FROM orders o
        WHERE o.project_id = ${scope.projectId}::uuid AND ${org} AND ${after} ${ORDER} LIMIT ${limit}`;
    case 'member':
      // One short index scan per visible project and one for the caller's personal orders, merged: the cost
      // follows the page size, not the size of the organization.
      return sql`SELECT ${outer} FROM (
          SELECT x.* FROM unnest(${arrayLiteral(scope.projectIds)}::uuid[]) AS p(id)
          CROSS JOIN LATERAL (
            SELECT ${cols}, o.creation_time FROM orders o
            WHERE o.project_id = p.id AND ${org} AND ${after} ${ORDER} LIMIT ${limit}) x
          UNION ALL
          (SELECT ${cols}, o.creation_time FROM orders o
            WHERE ${org} AND o.project_id IS NULL AND o.owner_key = ${scope.ownerKey}::text AND ${after} ${ORDER} LIMIT ${limit})
        ) u ORDER BY u.creation_time DESC, u.order_id COLLATE "C" DESC LIMIT ${limit}`;
  }
}

/** Reads up to `limit` orders of a scope after the cursor, newest first (creation_time DESC, order_id DESC). */
export async function fetchOrderPage(
  db: Executor,
  scope: OrderScope,
  cursor: KeysetCursor | null,
  limit: number,
  preview: boolean,
): Promise<OrderPageRow[]> {
  const outer = sql`u.order_id, u.project_id, u.creation_micros, u.asset_preview_key, u.layers, u.body`;
  return (await pageQuery<OrderPageRow>(scope, columns(preview), outer, cursor, limit).execute(db)).rows;
}

export interface OrderPageItems {
  /** Rows read (up to `limit`; one more than the page says another page exists). */
  rows: number;
  /** The page's items in order (at most `limit`): each one JSON object with marks (see SPLICE). */
  items: string[];
  /** Keyset position of the page's last item, when the page is full. */
  lastMicros: string | null;
  lastOrderId: string | null;
}

/**
 * Marks in an assembled page: chr(1) and a letter. JSON text never holds a raw control character (inside
 * strings they are escaped), so a stored document cannot forge one; the service acts on each (see
 * order-listing.service.ts):
 * - `S` (splice): the stored document ends right before it, and its closing brace is dropped there. Cutting
 *   the brace in SQL (left, rtrim, substr) counts characters over the whole UTF-8 document, which costs more
 *   than all the rest of the page's assembly; concatenating is only a copy.
 * - `N` + the order's project id (empty for a personal order) + chr(2): the `project` field of an Order
 *   (the `project_name` of an OrderPreview) as the caller sees it, null for a project the caller does not
 *   see. The service maps the few visible projects; a lookup per row here cost a tenth of the query.
 * - `P` + the key as a JSON string + chr(2): the presigned URL of a preview key (or null).
 * - `L` + the stored layers as JSON + chr(2): the layers_info array.
 */
const SPLICE = sql`chr(1) || 'S'`;
const projectMark = sql`chr(1) || 'N' || coalesce(o.project_id::text, '') || chr(2)`;
const previewMark = sql`CASE WHEN o.asset_preview_key IS NULL THEN 'null' ELSE chr(1) || 'P' || to_json(o.asset_preview_key)::text || chr(2) END`;
const layersMark = sql`CASE WHEN jsonb_array_length(o.layers) = 0 THEN '[]' ELSE chr(1) || 'L' || o.layers::text || chr(2) END`;

/** The row version a cached item is kept by (page-item-cache.ts): the writing transaction and the tuple's place. */
const VERSION = sql`o.xmin::text || ':' || o.ctid::text`;

/**
 * An order's item assembled by PostgreSQL from its stored document, one text value: the stored document
 * followed by the per-response fields, exactly as order-response.ts splices them once the service drops the
 * brace at the splice mark (to_json escapes text the way JSON.stringify does). Presigned URLs cannot be
 * computed here (the key stays out of the database session): their keys come back as marks.
 */
function itemExpression(preview: boolean): RawBuilder<unknown> {
  // concat() builds each item in one allocation, where a chain of || copies it once per operator.
  return preview
    ? sql`concat(o.preview_doc::text, ${SPLICE}, ',"asset_preview_url":', ${previewMark}, ',"project_name":', ${projectMark}, '}')`
    : sql`concat(o.doc::text, ${SPLICE}, ',"project":', ${projectMark}, ',"asset_preview_url":', ${previewMark},
        ',"layers_info":', ${layersMark}, '}')`;
}

/** A row of a page: its keyset position and its row version. */
export interface OrderPageVersion {
  order_id: string;
  creation_micros: string;
  version: string;
}

/** An order's assembled item and the row version it was assembled from. */
export interface OrderItemRow {
  order_id: string;
  version: string;
  item: string;
}

/** The assembled items of some orders of an organization (any order; an id that is not there has no row). */
export async function fetchOrderItems(db: Executor, organizationId: string, orderIds: readonly string[], preview: boolean): Promise<OrderItemRow[]> {
  if (orderIds.length === 0) return [];
  const result = await sql<OrderItemRow>`SELECT o.order_id, ${VERSION} AS version, ${itemExpression(preview)} AS item FROM orders o
    WHERE o.order_id = ANY(${arrayLiteral(orderIds)}::text[]) AND o.organization_id = ${organizationId}::uuid`.execute(db);
  return result.rows;
}

/** A whole page read at once: the keyset positions, versions and items of `limit` rows after the cursor. */
export async function fetchOrderPageItems(
  db: Executor,
  scope: OrderScope,
  cursor: KeysetCursor | null,
  limit: number,
  preview: boolean,
): Promise<Array<OrderPageVersion & { item: string }>> {
  const cols = sql`o.order_id, ((extract(epoch FROM o.creation_time) * 1000000)::bigint)::text AS creation_micros, ${VERSION} AS version,
    ${itemExpression(preview)} AS item`;
  return (await pageQuery<OrderPageVersion & { item: string }>(scope, cols, sql`u.order_id, u.creation_micros, u.version, u.item`, cursor, limit).execute(db)).rows;
}

/** The order_counters rows of a scope. */
function countersOf(scope: OrderScope): RawBuilder<unknown> {
  const org = sql`c.organization_id = ${scope.organizationId}::uuid`;
  switch (scope.kind) {
    case 'organization':
      return org;
    case 'personal-all':
      return sql`${org} AND c.project_id IS NULL`;
    case 'owner':
      return sql`${org} AND c.scope_key = ${`personal:${scope.ownerKey}`}::text`;
    case 'project':
      return sql`${org} AND c.scope_key = ${`project:${scope.projectId}`}::text`;
    case 'member':
      return sql`${org} AND (c.project_id = ANY(${arrayLiteral(scope.projectIds)}::uuid[]) OR c.scope_key = ${`personal:${scope.ownerKey}`}::text)`;
  }
}

/** order_stats from per-state sums (states the contract does not count are left out). */
function statsOf(rows: Iterable<readonly [string, number]>): OrderStatsT {
  const stats: OrderStatsT = {
    total_in_progress: 0,
    total_certified: 0,
    total_action_required: 0,
    total_reviewed: 0,
    total_failed: 0,
    total_unsupported: 0,
    total_orders: 0,
  };
  for (const [state, n] of rows) {
    const counter = STATE_COUNTERS[state as (typeof ORDER_STATES)[number]];
    if (!counter) continue;
    stats[counter] += n;
    stats.total_orders += n;
  }
  return stats;
}

/** order_stats of a scope, summed from order_counters (never by counting orders). */
export async function sumOrderCounters(db: Executor, scope: OrderScope): Promise<OrderStatsT> {
  const result = await sql<{ order_state: string; n: number }>`
    SELECT c.order_state, sum(c.order_count)::bigint AS n FROM order_counters c WHERE ${countersOf(scope)} GROUP BY c.order_state`.execute(db);
  return statsOf(result.rows.map((r) => [r.order_state, r.n] as const));
}

/**
 * The first read of a page in one statement and one result row: the scope's per-state counts, the caller's
 * visible projects when `visibleTo` is given, and the order ids and row versions of `limit` + 1 rows after
 * the cursor (the one beyond the page says another page exists) as one text (page-versions.ts), with the
 * keyset micros of the row at position `limit`. One statement instead of three, without the
 * documents: once the documents are cached, the cost of each statement (in the driver and in PostgreSQL)
 * is most of what a page costs.
 */
export async function fetchPageVersionsAndStats(
  db: Executor,
  scope: OrderScope,
  cursor: KeysetCursor | null,
  limit: number,
  visibleTo: Principal | null = null,
): Promise<PageVersions> {
  const cols = sql`o.order_id, o.xmin AS row_xmin, o.ctid AS row_ctid, o.creation_time AS row_time`;
  const page = pageQuery<unknown>(scope, cols, sql`u.order_id, u.row_xmin, u.row_ctid, u.row_time`, cursor, limit + 1);
  const projects = visibleTo ? visibleProjectsJson(visibleTo) : sql`NULL::text`;
  // row_number() OVER () numbers the rows in the order the page query returns them (its ORDER BY).
  const result = await sql<{ stats: string; visible: string | null; rows: string; last_micros: string | null }>`
    SELECT
      (SELECT coalesce(json_agg(json_build_array(c.order_state, c.n)), '[]')::text FROM
         (SELECT c.order_state, sum(c.order_count)::bigint AS n FROM order_counters c WHERE ${countersOf(scope)} GROUP BY c.order_state) c) AS stats,
      ${projects} AS visible,
      -- The format page-versions.ts parses; string_agg costs PostgreSQL less than building JSON.
      coalesce(string_agg(length(p.order_id)::text || ':' || p.order_id || p.row_xmin::text || ':' || p.row_ctid::text, E'\n' ORDER BY p.n), '') AS rows,
      max(CASE WHEN p.n = ${limit} THEN ((extract(epoch FROM p.row_time) * 1000000)::bigint)::text END) AS last_micros
    FROM (SELECT x.*, row_number() OVER () AS n FROM (${page}) x) p`.execute(db);
  const row = result.rows[0]!;
  const stats = statsOf(JSON.parse(row.stats) as Array<[string, number]>);
  return new PageVersions(stats, row.stats, row.rows, row.last_micros, limit, row.visible === null ? null : parseVisibleProjects(row.visible));
}

export interface SingleOrderRow extends OrderPageRow {
  organization_id: string;
  owner_key: string;
}

/** One order by id within an organization (visibility is checked by the caller). */
export async function findOrderRow(db: Executor, organizationId: string, orderId: string): Promise<SingleOrderRow | undefined> {
  // PostgreSQL text cannot hold NUL, so no stored order id contains one: unknown, not a database error.
  if (orderId.includes('\u0000')) return undefined;
  const result = await sql<SingleOrderRow>`
    SELECT ${columns(false)}, o.organization_id::text AS organization_id, o.owner_key
    FROM orders o WHERE o.order_id = ${orderId}::text AND o.organization_id = ${organizationId}::uuid`.execute(db);
  return result.rows[0];
}
