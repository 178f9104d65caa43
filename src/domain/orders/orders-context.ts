/**
 * What the order reads need besides the caller: the database, the page-token codec and the URL presigner.
 */
import type { Config } from '../../config.js';
import type { Db } from '../../storage/database.js';
import { HmacUrlPresigner, type UrlPresigner } from '../../storage/object-storage/presign.js';
import { PageTokenCodec } from '../../storage/page-token.js';
import { SERVER_SECRET, serverSecret } from '../../storage/server-secrets.js';
import { PageBodyMemo } from './page-body-memo.js';
import { PageItemCache, type PageItemCacheOptions } from './page-item-cache.js';

export interface OrdersContext {
  db: Db;
  /** The listing's first read and item reads (DatabaseHandle.hotReads); `db` where there is no such pool. */
  hotReads: Db;
  pageTokens: PageTokenCodec;
  presigner: UrlPresigner;
  /** Listing items by row version (page-item-cache.ts), kept for the process's life. */
  pageItems: PageItemCache;
  /** The last bodies of the listing's pages with what each was made from (page-body-memo.ts). */
  pageBodies: PageBodyMemo;
}

/**
 * Loads the deployment's page-token and presign keys (server_secrets). The composition root builds it
 * once per process; the API and the web pages share it.
 *
 * @example
 * const ctx = await createOrdersContext(handle.db, config);
 * const page = await listOrders(ctx, principal, { projectId: 'All Projects' });
 */
export async function createOrdersContext(
  db: Db,
  config: Pick<Config, 'publicBaseUrl' | 'presignTtlSeconds'>,
  options: { hotReads?: Db; pageItems?: PageItemCacheOptions } = {},
): Promise<OrdersContext & { presigner: HmacUrlPresigner }> {
  const [pageKey, presignKey] = await Promise.all([serverSecret(db, SERVER_SECRET.pageToken), serverSecret(db, SERVER_SECRET.presign)]);
  return {
    db,
    hotReads: options.hotReads ?? db,
    pageTokens: new PageTokenCodec(pageKey),
    presigner: new HmacUrlPresigner(presignKey, config.publicBaseUrl, config.presignTtlSeconds),
    pageItems: new PageItemCache(options.pageItems),
    pageBodies: new PageBodyMemo(),
  };
}
