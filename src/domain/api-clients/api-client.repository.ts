/** Queries on `api_clients`. Secrets never pass through here in clear: only their hashes. */
import { sql } from 'kysely';
import type { Executor } from '../../storage/database.js';

export interface ApiClientRecord {
  clientId: string;
  organizationId: string;
  userId: string;
  name: string;
  scopes: string[];
  createdAt: Date;
  lastUsedAt: Date | null;
  revokedAt: Date | null;
}

export interface NewApiClientRow {
  clientId: string;
  organizationId: string;
  userId: string;
  name: string;
  secretHash: string;
  scopes: string[];
}

const columns = ['client_id', 'organization_id', 'user_id', 'name', 'scopes', 'created_at', 'last_used_at', 'revoked_at'] as const;

type Row = {
  client_id: string;
  organization_id: string;
  user_id: string;
  name: string;
  scopes: string[];
  created_at: Date;
  last_used_at: Date | null;
  revoked_at: Date | null;
};

function toRecord(row: Row): ApiClientRecord {
  return {
    clientId: row.client_id,
    organizationId: row.organization_id,
    userId: row.user_id,
    name: row.name,
    scopes: row.scopes,
    createdAt: row.created_at,
    lastUsedAt: row.last_used_at,
    revokedAt: row.revoked_at,
  };
}

export async function insertApiClient(db: Executor, client: NewApiClientRow): Promise<ApiClientRecord> {
  const row = await db
    .insertInto('api_clients')
    .values({
      client_id: client.clientId,
      organization_id: client.organizationId,
      user_id: client.userId,
      name: client.name,
      secret_hash: client.secretHash,
      scopes: client.scopes,
    })
    .returning(columns)
    .executeTakeFirstOrThrow();
  return toRecord(row);
}

export async function findApiClient(db: Executor, clientId: string): Promise<ApiClientRecord | undefined> {
  const row = await db.selectFrom('api_clients').select(columns).where('client_id', '=', clientId).executeTakeFirst();
  return row ? toRecord(row) : undefined;
}

export interface ApiClientFilter {
  organizationId: string;
  /** Only the clients this user created. */
  userId?: string;
  includeRevoked?: boolean;
}

/** Clients of an organization (optionally of one user), newest first. */
export async function listApiClients(db: Executor, filter: ApiClientFilter): Promise<ApiClientRecord[]> {
  let query = db.selectFrom('api_clients').select(columns).where('organization_id', '=', filter.organizationId);
  if (filter.userId) query = query.where('user_id', '=', filter.userId);
  if (!filter.includeRevoked) query = query.where('revoked_at', 'is', null);
  const rows = await query.orderBy('created_at', 'desc').orderBy('client_id').execute();
  return rows.map(toRecord);
}

/**
 * Marks a client revoked (idempotent: the first revocation time is kept). Scoped to an organization
 * when given, so a caller can never revoke another organization's client. True when the client exists.
 */
export async function revokeApiClient(db: Executor, clientId: string, organizationId?: string): Promise<boolean> {
  let query = db
    .updateTable('api_clients')
    .set({ revoked_at: sql<Date>`coalesce(revoked_at, now())` })
    .where('client_id', '=', clientId);
  if (organizationId) query = query.where('organization_id', '=', organizationId);
  const result = await query.executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/** Records that a client obtained a token (callers throttle this; it is not a per-request write). */
export async function touchApiClientLastUsed(db: Executor, clientId: string, at: Date = new Date()): Promise<void> {
  await db.updateTable('api_clients').set({ last_used_at: at }).where('client_id', '=', clientId).execute();
}
