/**
 * Listing orders (GET /v1/orders and the web dashboard): resolves the caller's scope, reads one keyset page
 * and the scope's counters, and attaches what depends on the request (the caller's project role,
 * presigned URLs). Independent of HTTP: `listOrders` returns structured data (the web pages), and
 * `listOrdersBody` the API's JSON bytes (see its comment for the caches it uses).
 */
import type { LayerInfoT, OrderProjectT } from '../../contract/schemas.js';
import type { KeysetCursor, PageTokenBinding } from '../../storage/page-token.js';
import { isKeyOfOrganization } from '../../storage/object-storage/object-key.js';
import type { Principal } from '../principal.js';
import {
  fetchOrderItems,
  fetchOrderPage,
  fetchOrderPageItems,
  fetchPageVersionsAndStats,
  sumOrderCounters,
  type OrderItemRow,
  type OrderPageRow,
} from './order-listing.repository.js';
import type { PageVersions } from './page-versions.js';
import { parsePageItem, resolvePageItem, type PageItem } from './page-item.js';
import { ITEMS_PER_CHUNK, resolvePageTexts, utf8Join } from './page-text.js';
import { orderItemsEnvelope } from './order-response.js';
import { projectNamesFor, resolveOrderScope, scopeBeforeProjects, type OrderScope } from './order-scope.js';
import type { OrdersContext } from './orders-context.js';
import { listVisibleProjects, type VisibleProject } from './visible-projects.repository.js';
import type { ListedOrder, OrderListing } from './order-listing.types.js';

export type { ListedOrder, OrderListing } from './order-listing.types.js';

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
  const visible = await listVisibleProjects(ctx.hotReads, principal);
  const scope = resolveOrderScope(principal, options.projectId, visible);
  return { binding, cursor, visible, scope };
}

/**
 * The token binding, the verified cursor, the visible projects, the scope and the page's first read (ids,
 * versions, counts): in one statement when the scope is known before the visible projects are (every
 * filter but a non-administrator's All Projects), else the visible projects first.
 */
async function readFirst(ctx: OrdersContext, principal: Principal, options: ListOrdersOptions, limit: number) {
  const binding: PageTokenBinding = { organizationId: principal.organizationId, userId: principal.userId, projectFilter: options.projectId };
  const cursor = options.pageToken ? ctx.pageTokens.verify(options.pageToken, binding) : null;
  const early = scopeBeforeProjects(principal, options.projectId);
  if (early !== null) {
    const first = await fetchPageVersionsAndStats(ctx.hotReads, early, cursor, limit, principal);
    const visible = first.visible ?? [];
    // A project the caller does not see: 404, and what was read for it is dropped unseen.
    const scope = resolveOrderScope(principal, options.projectId, visible);
    return { binding, cursor, visible, scope, first };
  }
  const visible = await listVisibleProjects(ctx.hotReads, principal);
  const scope = resolveOrderScope(principal, options.projectId, visible);
  return { binding, cursor, visible, scope, first: await fetchPageVersionsAndStats(ctx.hotReads, scope, cursor, limit) };
}

/**
 * The page's items, given its first read (ids and row versions): the items the process's item cache holds,
 * and the others read by id. Orders are never deleted by the service; if one went between the two reads
 * anyway, the whole page is read again in one statement, so a page never has a hole.
 */
async function readPageItems(ctx: OrdersContext, organizationId: string, first: PageVersions, scope: OrderScope, cursor: KeysetCursor | null, limit: number, preview: boolean) {
  const versions = first.rows;
  const onPage = versions.slice(0, limit);
  const items: Array<PageItem | undefined> = onPage.map((r) => ctx.pageItems.get(organizationId, r.order_id, r.version, preview));
  const missing = onPage.filter((_, i) => items[i] === undefined).map((r) => r.order_id);
  if (missing.length > 0) {
    const read = new Map((await fetchOrderItems(ctx.hotReads, organizationId, missing, preview)).map((row) => [row.order_id, row]));
    for (let i = 0; i < onPage.length; i++) {
      if (items[i] !== undefined) continue;
      const row = read.get(onPage[i]!.order_id);
      if (row === undefined) return readWholePage(ctx, organizationId, scope, cursor, limit, preview);
      // Written since the first read: the newer state is served (as a later read would) and kept by its own version.
      items[i] = cachedItem(ctx, organizationId, row, preview);
    }
  }
  return { more: versions.length > limit, last: onPage.at(-1), items: items as PageItem[] };
}

async function readWholePage(ctx: OrdersContext, organizationId: string, scope: OrderScope, cursor: KeysetCursor | null, limit: number, preview: boolean) {
  const rows = await fetchOrderPageItems(ctx.hotReads, scope, cursor, limit + 1, preview);
  const onPage = rows.slice(0, limit);
  return { more: rows.length > limit, last: onPage.at(-1), items: onPage.map((row) => cachedItem(ctx, organizationId, row, preview)) };
}

function cachedItem(ctx: OrdersContext, organizationId: string, row: OrderItemRow, preview: boolean): PageItem {
  const item = parsePageItem(row.item, organizationId);
  ctx.pageItems.set(organizationId, row.order_id, row.version, preview, item);
  return item;
}

const COMMA = Buffer.from(',');

/** A page of a request seen for the first time: read, resolved as text, sent, nothing kept (page-text.ts). */
async function readPageOnce(ctx: OrdersContext, principal: Principal, options: ListOrdersOptions, preview: boolean, limit: number): Promise<Buffer> {
  const { binding, cursor, visible, scope } = await resolvePage(ctx, principal, options);
  const projectJson = new Map(visible.map((p) => [p.id, preview ? JSON.stringify(p.name) : JSON.stringify({ id: p.id, name: p.name, userRole: p.userRole })]));
  const [stats, rows] = await Promise.all([sumOrderCounters(ctx.hotReads, scope), fetchOrderPageItems(ctx.hotReads, scope, cursor, limit + 1, preview)]);
  const last = rows.length > limit ? rows[limit - 1] : undefined;
  const nextPageToken = last ? ctx.pageTokens.sign({ creationTimeMicros: BigInt(last.creation_micros), orderId: last.order_id }, binding) : null;
  const { head, tail } = orderItemsEnvelope({ preview, stats, projectNames: projectNamesFor(options.projectId, visible), nextPageToken });
  const now = options.nowSeconds ?? Math.floor(Date.now() / 1000);
  const items = rows.slice(0, limit).map((r) => r.item);
  const texts = [head];
  resolvePageTexts(ctx.presigner, principal.organizationId, items, projectJson, now, ITEMS_PER_CHUNK).forEach((chunk, i) => (i > 0 ? texts.push(',', chunk) : texts.push(chunk)));
  texts.push(tail);
  return utf8Join(texts);
}

/**
 * One page of the orders the caller sees as the UTF-8 bytes of the GetOrdersResponse JSON, byte for byte
 * what `renderOrdersResponse(await listOrders(...))` gives, but assembled from the stored documents.
 *
 * A request seen for the first time (a step of a walk, most often) is read once: the visible projects,
 * then the counts and the page's items assembled by PostgreSQL, resolved as text (page-text.ts), nothing
 * kept. A request seen before (a dashboard's first page, a client polling) reads, every time, the visible
 * projects, the page's order ids with their row versions and the scope's counts (one statement, one row
 * each). The body is then, in order of cost:
 * - the body made last time for the same request, if it was made from exactly these inputs (page-body-memo.ts);
 * - or assembled from the page's items: those unchanged since this process last read them from the item
 *   cache (page-item-cache.ts), the others assembled by the database from their stored documents, each
 *   item's marks resolved for this response (page-item.ts), all joined once into a buffer of the page's size.
 * The returned buffer may be shared with other responses: it must not be modified.
 * @throws InvalidPageTokenError, OrderScopeNotFoundError as listOrders does.
 */
export async function listOrdersBody(ctx: OrdersContext, principal: Principal, options: ListOrdersOptions): Promise<Buffer> {
  const preview = options.preview ?? false;
  const limit = options.limit ?? DEFAULT_PAGE_LIMIT;
  const request = JSON.stringify([preview, limit, principal.organizationId, principal.userId, options.projectId, options.pageToken ?? null]);
  if (!ctx.pageBodies.seenBefore(request)) return readPageOnce(ctx, principal, options, preview, limit);
  const { binding, cursor, visible, scope, first } = await readFirst(ctx, principal, options, limit);
  // The visible projects as the page shows them: `project` of an Order, `project_name` of an OrderPreview.
  const projectJson = visible.map((p) => [p.id, preview ? JSON.stringify(p.name) : JSON.stringify({ id: p.id, name: p.name, userRole: p.userRole })] as const);
  const inputs = { versions: first.key, projects: JSON.stringify(projectJson), nowSeconds: options.nowSeconds ?? Math.floor(Date.now() / 1000) };
  const kept = ctx.pageBodies.get(request, inputs);
  if (kept !== undefined) return kept;

  const page = await readPageItems(ctx, principal.organizationId, first, scope, cursor, limit, preview);
  const last = page.more ? page.last : undefined;
  if (last !== undefined && last.creation_micros === null) throw new Error('the keyset position of the page\'s last row was not read');
  const nextPageToken = last ? ctx.pageTokens.sign({ creationTimeMicros: BigInt(last.creation_micros!), orderId: last.order_id }, binding) : null;
  const { head, tail } = orderItemsEnvelope({ preview, stats: first.stats, projectNames: projectNamesFor(options.projectId, visible), nextPageToken });
  const resolution = { projects: new Map(projectJson.map(([id, json]) => [id, Buffer.from(json, 'utf8')])), presigner: ctx.presigner, nowSeconds: inputs.nowSeconds };
  const headBytes = Buffer.from(head, 'utf8');
  const parts: Buffer[] = [headBytes];
  let size = headBytes.length;
  page.items.forEach((item, i) => {
    if (i > 0) {
      parts.push(COMMA);
      size += 1;
    }
    const bytes = resolvePageItem(item, resolution);
    parts.push(bytes);
    size += bytes.length;
  });
  const tailBytes = Buffer.from(tail, 'utf8');
  parts.push(tailBytes);
  size += tailBytes.length;
  // A buffer of its own (Buffer.concat may hand out a slice of Node's shared pool, which keeping it would pin).
  const body = Buffer.allocUnsafeSlow(size);
  let offset = 0;
  for (const part of parts) offset += part.copy(body, offset);
  ctx.pageBodies.set(request, inputs, body);
  return body;
}
