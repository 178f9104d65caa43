/**
 * Deployment-wide secrets (page-token and presigned-URL HMAC keys), generated once and kept in
 * `server_secrets`, so every instance behind one load balancer signs and verifies with the same key.
 */
import { randomBytes } from 'node:crypto';
import type { Db } from '../storage/database.js';

/** Names of the secrets certdesk keeps; each is 256 random bits, base64url. */
export const SERVER_SECRET = {
  pageToken: 'page-token-hmac-v1',
  presign: 'presign-hmac-v1',
} as const;

const cache = new WeakMap<Db, Map<string, Promise<Buffer>>>();

/**
 * Returns the named secret, creating it on first use. Race-safe across instances: every instance tries
 * `INSERT … ON CONFLICT DO NOTHING` with its own random value, then reads the row that won. The value never
 * changes afterwards, so it is cached per database handle.
 *
 * @example
 * const key = await serverSecret(handle.db, SERVER_SECRET.pageToken);
 */
export function serverSecret(db: Db, name: string): Promise<Buffer> {
  let byName = cache.get(db);
  if (!byName) {
    byName = new Map();
    cache.set(db, byName);
  }
  let secret = byName.get(name);
  if (!secret) {
    secret = loadOrCreate(db, name);
    // A failed load (database down) must not poison the cache: the next request tries again.
    secret.catch(() => byName!.delete(name));
    byName.set(name, secret);
  }
  return secret;
}

async function loadOrCreate(db: Db, name: string): Promise<Buffer> {
  // Two statements on purpose: under READ COMMITTED a single statement's snapshot could miss the row
  // another instance committed while this INSERT waited on it.
  await db
    .insertInto('server_secrets')
    .values({ name, value: randomBytes(32).toString('base64url') })
    .onConflict((oc) => oc.column('name').doNothing())
    .execute();
  const row = await db.selectFrom('server_secrets').select('value').where('name', '=', name).executeTakeFirstOrThrow();
  return Buffer.from(row.value, 'base64url');
}
