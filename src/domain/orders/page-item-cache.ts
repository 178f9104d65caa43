/**
 * Parsed page items (page-item.ts) of recently listed orders, by row version. A listing first reads only
 * the page's order ids and their row versions (order-listing.repository.ts fetchPageVersionsAndStats) and
 * takes the documents of the orders whose version it has from here; only the others are read, assembled
 * and sent by the database. So the bytes of a page that did not change are not sent, decoded and encoded
 * again for every response.
 *
 * A version names one committed state of a row: PostgreSQL's `xmin` (the transaction that wrote it) and
 * `ctid` (where it lies). Every write of an order (its document, project, keys or layers: all columns of
 * the one row) makes a new row version with a new `xmin`, so a changed order is never served from here;
 * a row moved by VACUUM FULL only misses. Transaction ids wrap around after 2^32 transactions, so an
 * entry is also dropped after `maxAgeMs` (ten minutes: no PostgreSQL server runs four billion
 * transactions in that time), and the same (xmin, ctid) can never name two states of one order here.
 *
 * Bounded by the bytes of the items it holds (`maxBytes`); least recently used first out. Each process
 * keeps its own, like the presigned URL cache.
 */
import { LRUCache } from 'lru-cache';
import type { PageItem } from './page-item.js';

/** Default bound: ~6,000 full orders (about 30 pages of 200), or twice as many previews. */
export const PAGE_ITEM_CACHE_BYTES = 16 * 1024 * 1024;
/** Entries older than this are read again (see the transaction id wrap-around above). */
export const PAGE_ITEM_MAX_AGE_MS = 10 * 60 * 1000;
/** What an entry costs besides its bytes: the key, the segment objects, the map's node. */
const ENTRY_OVERHEAD_BYTES = 400;

export interface PageItemCacheOptions {
  maxBytes?: number;
  maxAgeMs?: number;
}

export class PageItemCache {
  private readonly items: LRUCache<string, PageItem>;

  constructor(options: PageItemCacheOptions = {}) {
    this.items = new LRUCache<string, PageItem>({
      maxSize: options.maxBytes ?? PAGE_ITEM_CACHE_BYTES,
      // Twice the item: it also keeps its last resolved bytes (page-item.ts), about as large.
      sizeCalculation: (item, key) => 2 * item.bytes + key.length + ENTRY_OVERHEAD_BYTES,
      ttl: options.maxAgeMs ?? PAGE_ITEM_MAX_AGE_MS,
      // Stale entries are dropped when asked for (or pushed out by size): no timer per entry.
      ttlAutopurge: false,
      updateAgeOnGet: false,
    });
  }

  private static key(organizationId: string, orderId: string, version: string, preview: boolean): string {
    // The version and organization first: an order id is arbitrary text, the two before it are not.
    return `${preview ? 'p' : 'f'}${version}|${organizationId}|${orderId}`;
  }

  get(organizationId: string, orderId: string, version: string, preview: boolean): PageItem | undefined {
    return this.items.get(PageItemCache.key(organizationId, orderId, version, preview));
  }

  set(organizationId: string, orderId: string, version: string, preview: boolean, item: PageItem): void {
    this.items.set(PageItemCache.key(organizationId, orderId, version, preview), item);
  }

  /** Items held now. */
  get size(): number {
    return this.items.size;
  }
}
