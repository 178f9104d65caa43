/**
 * Listing orders (GET /v1/orders and the web dashboard): resolves the caller's scope, reads one keyset page
 * and the scope's counters, and attaches what depends on the request (the caller's project role,
 * presigned URLs). Independent of HTTP: it returns structured data, `order-response.ts` turns it into JSON.
 */
import type { LayerInfoT, OrderProjectT, OrderStatsT } from '../../contract/schemas.js';
import type { PageTokenBinding } from '../../storage/page-token.js';
import type { Principal } from '../principal.js';
import { fetchOrderPage, sumOrderCounters, type OrderPageRow } from './order-listing.repository.js';
import { projectNamesFor, resolveOrderScope } from './order-scope.js';
import type { OrdersContext } from './orders-context.js';
import { listVisibleProjects, type VisibleProject } from './visible-projects.repository.js';

export const DEFAULT_PAGE_LIMIT = 200;
export const MAX_PAGE_LIMIT = 1000;

export interface ListOrdersOptions {
  /** `All Projects`, `Personal Certificates` or a project id. */
  projectId: string;
  /** true: preview documents (OrderPreview); false: full orders. */
  preview?: boolean;
  /** next_page_token of the previous page. */
  pageToken?: string | null;
  /** 1..1000 (checked by the caller's input validation), default 200. */
  limit?: number;
}

/** One listed order: its stored document text plus the per-response fields. */
export interface ListedOrder {
  orderId: string;
  /** The stored `doc` (or `preview_doc` for previews): JSON text of an object, spliced verbatim. */
  body: string;
  /** The order's project with the caller's role; null for a personal order. */
  project: OrderProjectT | null;
  assetPreviewUrl: string | null;
  layersInfo: LayerInfoT[];
}

export interface OrderListing {
  preview: boolean;
  stats: OrderStatsT;
  projectNames: string[];
  nextPageToken: string | null;
  orders: ListedOrder[];
}

/** Attaches the per-response fields to a stored row. */
export function toListedOrder(ctx: OrdersContext, row: OrderPageRow, projects: Map<string, OrderProjectT>, nowSeconds: number): ListedOrder {
  return {
    orderId: row.order_id,
    body: row.body,
    project: row.project_id === null ? null : (projects.get(row.project_id) ?? null),
    assetPreviewUrl: row.asset_preview_key === null ? null : ctx.presigner.presign(row.asset_preview_key, nowSeconds),
    layersInfo: row.layers.map((l) => ({ layer_name: l.layer_name, layer_url: ctx.presigner.presign(l.key, nowSeconds) })),
  };
}

/** The visible projects by id, as the `project` field of their orders shows them. */
export function projectMap(visible: VisibleProject[]): Map<string, OrderProjectT> {
  return new Map(visible.map((p) => [p.id, { id: p.id, name: p.name, userRole: p.userRole }]));
}

/**
 * One page of the orders the caller sees.
 * @throws InvalidPageTokenError for a malformed, tampered or mismatched token (checked before any read).
 * @throws OrderScopeNotFoundError when the filter names nothing the caller sees.
 */
export async function listOrders(ctx: OrdersContext, principal: Principal, options: ListOrdersOptions): Promise<OrderListing> {
  const preview = options.preview ?? false;
  const limit = options.limit ?? DEFAULT_PAGE_LIMIT;
  const binding: PageTokenBinding = { organizationId: principal.organizationId, userId: principal.userId, projectFilter: options.projectId };
  const cursor = options.pageToken ? ctx.pageTokens.verify(options.pageToken, binding) : null;
  const visible = await listVisibleProjects(ctx.db, principal);
  const scope = resolveOrderScope(principal, options.projectId, visible);
  // One row beyond the page says whether another page exists, so the last page never promises an empty one.
  const [stats, rows] = await Promise.all([sumOrderCounters(ctx.db, scope), fetchOrderPage(ctx.db, scope, cursor, limit + 1, preview)]);
  const more = rows.length > limit;
  if (more) rows.length = limit;
  const last = rows[rows.length - 1];
  const nextPageToken =
    more && last ? ctx.pageTokens.sign({ creationTimeMicros: BigInt(last.creation_micros), orderId: last.order_id }, binding) : null;
  const projects = projectMap(visible);
  const now = Math.floor(Date.now() / 1000);
  return {
    preview,
    stats,
    projectNames: projectNamesFor(options.projectId, visible),
    nextPageToken,
    orders: rows.map((row) => toListedOrder(ctx, row, projects, now)),
  };
}
