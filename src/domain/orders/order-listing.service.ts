/**
 * Listing orders (GET /v1/orders and the web dashboard): resolves the caller's scope, reads one keyset page
 * and the scope's counters, and attaches what depends on the request (the caller's project role,
 * presigned URLs). Independent of HTTP: it returns structured data, `order-response.ts` turns it into JSON.
 */
import type { LayerInfoT, OrderProjectT, OrderStatsT } from '../../contract/schemas.js';
import type { PageTokenBinding } from '../../storage/page-token.js';
import { isKeyOfOrganization } from '../../storage/object-storage/object-key.js';
import type { Principal } from '../principal.js';
import { fetchOrderPage, fetchOrderPageJson, sumOrderCounters, type OrderPageRow } from './order-listing.repository.js';
import { wrapOrderItems } from './order-response.js';
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
  /** Signing time of the presigned URLs, Unix seconds (default: now). */
  nowSeconds?: number;
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

/**
 * Attaches the per-response fields to a stored row of `organizationId`. A key outside that organization's
 * prefix (a row written before keys were scoped, or by a bug) gets no URL: no preview, no layer entry.
 */
export function toListedOrder(
  ctx: OrdersContext,
  organizationId: string,
  row: OrderPageRow,
  projects: Map<string, OrderProjectT>,
  nowSeconds: number,
): ListedOrder {
  const own = (key: string) => isKeyOfOrganization(key, organizationId);
  return {
    orderId: row.order_id,
    body: row.body,
    project: row.project_id === null ? null : (projects.get(row.project_id) ?? null),
    assetPreviewUrl: row.asset_preview_key === null || !own(row.asset_preview_key) ? null : ctx.presigner.presign(row.asset_preview_key, nowSeconds),
    layersInfo: row.layers.filter((l) => own(l.key)).map((l) => ({ layer_name: l.layer_name, layer_url: ctx.presigner.presign(l.key, nowSeconds) })),
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
  const { binding, cursor, visible, scope } = await resolvePage(ctx, principal, options);
  // One row beyond the page says whether another page exists, so the last page never promises an empty one.
  const [stats, rows] = await Promise.all([sumOrderCounters(ctx.db, scope), fetchOrderPage(ctx.db, scope, cursor, limit + 1, preview)]);
  const more = rows.length > limit;
  if (more) rows.length = limit;
  const last = rows[rows.length - 1];
  const nextPageToken =
    more && last ? ctx.pageTokens.sign({ creationTimeMicros: BigInt(last.creation_micros), orderId: last.order_id }, binding) : null;
  const projects = projectMap(visible);
  const now = options.nowSeconds ?? Math.floor(Date.now() / 1000);
  return {
    preview,
    stats,
    projectNames: projectNamesFor(options.projectId, visible),
    nextPageToken,
    orders: rows.map((row) => toListedOrder(ctx, principal.organizationId, row, projects, now)),
  };
}

/** What every page read needs first: the token binding, the verified cursor, the visible projects, the scope. */
async function resolvePage(ctx: OrdersContext, principal: Principal, options: ListOrdersOptions) {
  const binding: PageTokenBinding = { organizationId: principal.organizationId, userId: principal.userId, projectFilter: options.projectId };
  const cursor = options.pageToken ? ctx.pageTokens.verify(options.pageToken, binding) : null;
  const visible = await listVisibleProjects(ctx.db, principal);
  const scope = resolveOrderScope(principal, options.projectId, visible);
  return { binding, cursor, visible, scope };
}

/**
 * The presign marks of an assembled page: a preview key as a JSON string between \u0001 and \u0002, or
 * the stored layers (JSON array) between \u0003 and \u0004.
 */
const PRESIGN_MARK = /\u0001("(?:[^"\\]|\\.)*")\u0002|\u0003([^\u0004]*)\u0004/g;

/**
 * One page of the orders the caller sees as GetOrdersResponse JSON text, byte for byte what
 * `renderOrdersResponse(await listOrders(...))` gives, but assembled by the database: the driver hands over
 * one text value for the whole page, and the only per-item work left here is swapping each presign mark
 * for its (cached) URL in one pass over that text.
 * @throws InvalidPageTokenError, OrderScopeNotFoundError as listOrders does.
 */
export async function listOrdersJson(ctx: OrdersContext, principal: Principal, options: ListOrdersOptions): Promise<string> {
  const preview = options.preview ?? false;
  const limit = options.limit ?? DEFAULT_PAGE_LIMIT;
  const { binding, cursor, visible, scope } = await resolvePage(ctx, principal, options);
  const projects = visible.map((p) => ({ id: p.id, project: JSON.stringify({ id: p.id, name: p.name, userRole: p.userRole }), name: JSON.stringify(p.name) }));
  const [stats, page] = await Promise.all([sumOrderCounters(ctx.db, scope), fetchOrderPageJson(ctx.db, scope, cursor, limit, preview, projects)]);
  const nextPageToken =
    page.rows > limit && page.lastMicros !== null && page.lastOrderId !== null
      ? ctx.pageTokens.sign({ creationTimeMicros: BigInt(page.lastMicros), orderId: page.lastOrderId }, binding)
      : null;
  const now = options.nowSeconds ?? Math.floor(Date.now() / 1000);
  // The same rule as toListedOrder: a key outside the organization's prefix gets no URL.
  const own = (key: string) => isKeyOfOrganization(key, principal.organizationId);
  const items = page.items.replace(PRESIGN_MARK, (_mark, keyJson: string | undefined, layersJson: string | undefined) => {
    if (layersJson !== undefined) {
      const layers = (JSON.parse(layersJson) as Array<{ layer_name: string; key: string }>).filter((l) => own(l.key));
      return JSON.stringify(layers.map((l) => ({ layer_name: l.layer_name, layer_url: ctx.presigner.presign(l.key, now) })));
    }
    const key = keyJson!.includes('\\') ? (JSON.parse(keyJson!) as string) : keyJson!.slice(1, -1);
    return own(key) ? JSON.stringify(ctx.presigner.presign(key, now)) : 'null';
  });
  return wrapOrderItems({ preview, stats, projectNames: projectNamesFor(options.projectId, visible), nextPageToken }, items);
}
