/** SQL of Idempotency-Key records (table `idempotency_keys`, migrations/0002). */
import { sql } from 'kysely';
import type { Executor } from '../../storage/database.js';

export interface IdempotencyRecord {
  request_hash: string;
  state: 'running' | 'done';
  response_status: number | null;
  response_headers: Record<string, string> | null;
  response_body: string | null;
  locked_until: Date;
  expires_at: Date;
}

/**
 * Takes the key for a new request: inserts a `running` record, or takes over one that expired or whose
 * request died (its lock ran out). @returns true when this request owns the key now.
 */
export async function acquireIdempotencyKey(
  db: Executor,
  scope: string,
  key: string,
  requestHash: string,
  now: Date,
  lockMs: number,
  ttlMs: number,
): Promise<boolean> {
  const result = await sql<{ scope: string }>`
    INSERT INTO idempotency_keys (scope, idempotency_key, request_hash, state, created_at, locked_until, expires_at)
    VALUES (${scope}, ${key}, ${requestHash}, 'running', ${now}, ${new Date(now.getTime() + lockMs)}, ${new Date(now.getTime() + ttlMs)})
    ON CONFLICT (scope, idempotency_key) DO UPDATE SET
      request_hash = EXCLUDED.request_hash, state = 'running', response_status = NULL, response_headers = NULL,
      response_body = NULL, created_at = EXCLUDED.created_at, locked_until = EXCLUDED.locked_until, expires_at = EXCLUDED.expires_at
    WHERE idempotency_keys.expires_at <= ${now}
       OR (idempotency_keys.state = 'running' AND idempotency_keys.locked_until <= ${now} AND idempotency_keys.request_hash = EXCLUDED.request_hash)
    RETURNING scope`.execute(db);
  return result.rows.length === 1;
}

export async function findIdempotencyRecord(db: Executor, scope: string, key: string): Promise<IdempotencyRecord | undefined> {
  return (await db
    .selectFrom('idempotency_keys')
    .select(['request_hash', 'state', 'response_status', 'response_headers', 'response_body', 'locked_until', 'expires_at'])
    .where('scope', '=', scope)
    .where('idempotency_key', '=', key)
    .executeTakeFirst()) as IdempotencyRecord | undefined;
}

export async function completeIdempotencyKey(
  db: Executor,
  scope: string,
  key: string,
  response: { status: number; headers: Record<string, string>; body: string },
  /** Replaces the claimed hash (a multipart request, once its file's content is known). */
  requestHash?: string,
): Promise<void> {
  await db
    .updateTable('idempotency_keys')
    .set({
      state: 'done',
      response_status: response.status,
      response_headers: JSON.stringify(response.headers),
      response_body: response.body,
      ...(requestHash === undefined ? {} : { request_hash: requestHash }),
    })
    .where('scope', '=', scope)
    .where('idempotency_key', '=', key)
    .execute();
}

/** Forgets a key whose request failed unexpectedly (a retry may run it again). */
export async function releaseIdempotencyKey(db: Executor, scope: string, key: string): Promise<void> {
  await db.deleteFrom('idempotency_keys').where('scope', '=', scope).where('idempotency_key', '=', key).where('state', '=', 'running').execute();
}

export async function deleteExpiredIdempotencyKeys(db: Executor, now: Date): Promise<number> {
  const result = await db.deleteFrom('idempotency_keys').where('expires_at', '<', now).executeTakeFirst();
  return Number(result.numDeletedRows);
}
