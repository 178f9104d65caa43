/**
 * Listing orders (GET /v1/orders and the web dashboard): resolves the caller's scope, reads one keyset page
 * and the scope's counters, and attaches what depends on the request (the caller's project role,
 * presigned URLs). Independent of HTTP: it returns structured data, `order-response.ts` turns it into JSON.
 */
import type { LayerInfoT, OrderProjectT } from '../../contract/schemas.js';
import type { PageTokenBinding } from '../../storage/page-token.js';
import { isKeyOfOrganization, keyOwnershipCheck } from '../../storage/object-storage/object-key.js';
import type { Principal } from '../principal.js';
import { fetchOrderPage, fetchOrderPageItems, sumOrderCounters, type OrderPageRow } from './order-listing.repository.js';
import { orderItemsEnvelope } from './order-response.js';
import { projectNamesFor, resolveOrderScope } from './order-scope.js';
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
  const visible = await listVisibleProjects(ctx.db, principal);
  const scope = resolveOrderScope(principal, options.projectId, visible);
  return { binding, cursor, visible, scope };
}

/** Marks of an assembled page (order-listing.repository.ts): chr(1), then S (splice), or N, P, L (up to chr(2)). */
const MARK = '\u0001';
const MARK_END = '\u0002';
const SPLICE = 0x53; // 'S'
const PREVIEW = 0x50; // 'P'
const PROJECT = 0x4e; // 'N'
const CLOSING_BRACE = 0x7d;

/**
 * Items per chunk of a page's text: ~35 KB of full orders. A page of 200 full orders is ~260 KB, and one
 * string that size lives in V8's large-object space: a fresh mapping per string, page faults on every first
 * touch, munmap after GC (a quarter of the server's CPU when measured). Chunks stay in the regular heap.
 */
export const ITEMS_PER_CHUNK = 32;

/**
 * The page's items as JSON text, comma-separated, in chunks of `itemsPerChunk`, with every mark resolved
 * in one pass over each item found with indexOf (a character search): each document's closing brace is
 * dropped at its splice mark, each project mark becomes the project as the caller sees it, and each
 * preview key and layers mark becomes its (cached) presigned URLs.
 */
function resolveItems(
  ctx: OrdersContext,
  organizationId: string,
  items: string[],
  projectJson: ReadonlyMap<string, string>,
  now: number,
  itemsPerChunk: number,
): string[] {
  // The same rule as toListedOrder: a key outside the organization's prefix gets no URL.
  const own = keyOwnershipCheck(organizationId);
  const previewUrl = (keyJson: string) => {
    const key = keyJson.includes('\\') ? (JSON.parse(keyJson) as string) : keyJson.slice(1, -1);
    return own(key) ? ctx.presigner.presignJson(key, now) : 'null';
  };
  const layersInfo = (layersJson: string) => {
    const layers = (JSON.parse(layersJson) as Array<{ layer_name: string; key: string }>).filter((l) => own(l.key));
    return JSON.stringify(layers.map((l) => ({ layer_name: l.layer_name, layer_url: ctx.presigner.presign(l.key, now) })));
  };
  const chunks: string[] = [];
  let out = '';
  items.forEach((item, i) => {
    if (i % itemsPerChunk !== 0) out += ',';
    let from = 0;
    for (let mark = item.indexOf(MARK); mark !== -1; mark = item.indexOf(MARK, from)) {
      const kind = item.charCodeAt(mark + 1);
      if (kind === SPLICE) {
        // Stored documents are JSON objects written by the renderer: they end with their closing brace.
        if (item.charCodeAt(mark - 1) !== CLOSING_BRACE) throw new Error('stored order document is not a JSON object');
        out += item.slice(from, mark - 1);
        from = mark + 2;
        continue;
      }
      const end = item.indexOf(MARK_END, mark + 2);
      const value = item.slice(mark + 2, end);
      // A project the caller does not see (or none: a personal order) shows null.
      out += item.slice(from, mark) + (kind === PROJECT ? (projectJson.get(value) ?? 'null') : kind === PREVIEW ? previewUrl(value) : layersInfo(value));
      from = end + 1;
    }
    out += item.slice(from);
    if ((i + 1) % itemsPerChunk === 0 || i === items.length - 1) {
      chunks.push(out);
      out = '';
    }
  });
  return chunks;
}

/** Texts as one UTF-8 buffer, allocated once at its exact size: no intermediate buffers, no second copy. */
function utf8Join(texts: string[]): Buffer {
  let size = 0;
  for (const text of texts) size += Buffer.byteLength(text);
  const out = Buffer.allocUnsafeSlow(size);
  let offset = 0;
  for (const text of texts) offset += out.write(text, offset);
  return out;
}

/**
 * One page of the orders the caller sees as the UTF-8 bytes of the GetOrdersResponse JSON, byte for byte
 * what `renderOrdersResponse(await listOrders(...))` gives, but assembled by the database: one text value
 * per order, so the only per-item work left here is resolving its marks (a splice point, presigned URLs).
 * The page never exists as one string (see ITEMS_PER_CHUNK): its chunks are encoded straight into one
 * buffer of the page's exact size.
 * @throws InvalidPageTokenError, OrderScopeNotFoundError as listOrders does.
 */
export async function listOrdersBody(ctx: OrdersContext, principal: Principal, options: ListOrdersOptions, itemsPerChunk = ITEMS_PER_CHUNK): Promise<Buffer> {
  const preview = options.preview ?? false;
  const limit = options.limit ?? DEFAULT_PAGE_LIMIT;
  const { binding, cursor, visible, scope } = await resolvePage(ctx, principal, options);
  // The visible projects as the page shows them, each serialized once: `project` of an Order, `project_name` of an OrderPreview.
  const projectJson = new Map(visible.map((p) => [p.id, preview ? JSON.stringify(p.name) : JSON.stringify({ id: p.id, name: p.name, userRole: p.userRole })]));
  const [stats, page] = await Promise.all([sumOrderCounters(ctx.db, scope), fetchOrderPageItems(ctx.db, scope, cursor, limit, preview)]);
  const nextPageToken =
    page.rows > limit && page.lastMicros !== null && page.lastOrderId !== null
      ? ctx.pageTokens.sign({ creationTimeMicros: BigInt(page.lastMicros), orderId: page.lastOrderId }, binding)
      : null;
  const now = options.nowSeconds ?? Math.floor(Date.now() / 1000);
  const { head, tail } = orderItemsEnvelope({ preview, stats, projectNames: projectNamesFor(options.projectId, visible), nextPageToken });
  const texts = [head];
  resolveItems(ctx, principal.organizationId, page.items, projectJson, now, itemsPerChunk).forEach((chunk, i) => (i > 0 ? texts.push(',', chunk) : texts.push(chunk)));
  texts.push(tail);
  return utf8Join(texts);
}
