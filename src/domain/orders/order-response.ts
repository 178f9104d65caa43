/**
 * Turns a listing into the GetOrdersResponse JSON text by splicing each stored document: its final `}` is
 * dropped and the per-response fields are appended. The stored documents are never parsed, so a page of
 * 1,000 orders costs string concatenation, not 1,000 parse/serialize round trips.
 */
import type { OrderPreviewT, OrderProjectT, OrderT } from '../../contract/schemas.js';
import type { ListedOrder, OrderListing } from './order-listing.types.js';

/** The stored document without its closing brace; documents are always non-empty objects. */
function openDocument(body: string): string {
  const end = body.lastIndexOf('}');
  if (end < 1) throw new Error('stored order document is not a JSON object');
  return body.slice(0, end);
}

/** One Order as JSON text (stored doc + project, asset_preview_url, layers_info). */
export function orderJson(order: ListedOrder, projectJson = JSON.stringify(order.project)): string {
  return `${openDocument(order.body)},"project":${projectJson},"asset_preview_url":${JSON.stringify(order.assetPreviewUrl)},"layers_info":${JSON.stringify(order.layersInfo)}}`;
}

/** One OrderPreview as JSON text (stored preview doc + asset_preview_url, project_name). */
export function orderPreviewJson(order: ListedOrder): string {
  return `${openDocument(order.body)},"asset_preview_url":${JSON.stringify(order.assetPreviewUrl)},"project_name":${JSON.stringify(order.project?.name ?? null)}}`;
}

/** The whole GetOrdersResponse: both `orders` and `order_previews` keys, the one not asked for null. */
export function renderOrdersResponse(listing: OrderListing): string {
  let items: string;
  if (listing.preview) {
    items = listing.orders.map(orderPreviewJson).join(',');
  } else {
    // The same few projects repeat on every row: serialize each once per response.
    const projectJson = new Map<OrderProjectT | null, string>();
    items = listing.orders
      .map((o) => {
        let p = projectJson.get(o.project);
        if (p === undefined) projectJson.set(o.project, (p = JSON.stringify(o.project)));
        return orderJson(o, p);
      })
      .join(',');
  }
  return wrapOrderItems(listing, items);
}

/** The GetOrdersResponse around its items (comma-separated JSON objects, already rendered). */
export function wrapOrderItems(listing: Omit<OrderListing, 'orders'>, items: string): string {
  const { head, tail } = orderItemsEnvelope(listing);
  return `${head}${items}${tail}`;
}

/** The GetOrdersResponse's text before and after its items: `head + items + tail` is the whole response. */
export function orderItemsEnvelope(listing: Omit<OrderListing, 'orders'>): { head: string; tail: string } {
  const head = `{"order_stats":${JSON.stringify(listing.stats)},"project_names":${JSON.stringify(listing.projectNames)},"next_page_token":${JSON.stringify(listing.nextPageToken)}`;
  return listing.preview ? { head: `${head},"orders":null,"order_previews":[`, tail: ']}' } : { head: `${head},"orders":[`, tail: '],"order_previews":null}' };
}

/** A listed order as an object (web pages): parses one document. */
export function toOrderObject(order: ListedOrder): OrderT {
  return JSON.parse(orderJson(order)) as OrderT;
}

/** A listed preview as an object (web pages). */
export function toOrderPreviewObject(order: ListedOrder): OrderPreviewT {
  return JSON.parse(orderPreviewJson(order)) as OrderPreviewT;
}
