/**
 * What the order reads need besides the caller: the database, the page-token codec and the URL presigner.
 * Built once per process (the keys come from server_secrets) and shared by the API and the web pages.
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

/** The HMAC presigner of the embedded object storage, keyed by the deployment's presign secret. */
export async function createHmacPresigner(db: Db, config: Pick<Config, 'publicBaseUrl' | 'presignTtlSeconds'>): Promise<HmacUrlPresigner> {
  return new HmacUrlPresigner(await serverSecret(db, SERVER_SECRET.presign), config.publicBaseUrl, config.presignTtlSeconds);
}

/**
 * @example
 * const ctx = await createOrdersContext(handle.db, config);
 * const page = await listOrders(ctx, principal, { projectId: 'All Projects' });
 */
export async function createOrdersContext(db: Db, config: Pick<Config, 'publicBaseUrl' | 'presignTtlSeconds'>): Promise<OrdersContext> {
  const [pageKey, presigner] = await Promise.all([serverSecret(db, SERVER_SECRET.pageToken), createHmacPresigner(db, config)]);
  return { db, pageTokens: new PageTokenCodec(pageKey), presigner };
}
