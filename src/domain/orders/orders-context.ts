/**
 * What the order reads need besides the caller: the database, the page-token codec and the URL presigner.
 */
import type { Config } from '../../config.js';
import type { Db } from '../../storage/database.js';
import { HmacUrlPresigner, type UrlPresigner } from '../../storage/object-storage/presign.js';
import { PageTokenCodec } from '../../storage/page-token.js';
import { SERVER_SECRET, serverSecret } from '../../storage/server-secrets.js';

export interface OrdersContext {
  db: Db;
  pageTokens: PageTokenCodec;
  presigner: UrlPresigner;
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
): Promise<OrdersContext & { presigner: HmacUrlPresigner }> {
  const [pageKey, presignKey] = await Promise.all([serverSecret(db, SERVER_SECRET.pageToken), serverSecret(db, SERVER_SECRET.presign)]);
  return { db, pageTokens: new PageTokenCodec(pageKey), presigner: new HmacUrlPresigner(presignKey, config.publicBaseUrl, config.presignTtlSeconds) };
}
