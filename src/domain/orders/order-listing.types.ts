/**
 * What listing orders produces (order-listing.service.ts) and what order-response.ts renders. A module of
 * its own so that the renderer and the service, which uses the renderer's envelope, do not import each other.
 */
import type { LayerInfoT, OrderProjectT, OrderStatsT } from '../../contract/schemas.js';

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
