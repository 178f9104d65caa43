/**
 * Resolves an API client to the user it acts for: one query joining the client and its user, used by
 * client authentication and by bearer verification on every request (behind a short cache).
 */
import type { Executor } from '../../storage/database.js';
import { PRINCIPAL_USER_COLUMNS, principalUserOfRow, type PrincipalUser } from '../principal.js';

/** The client, and the user it acts for (empty fields when the user row is gone). */
export interface ClientAccessRecord extends PrincipalUser {
  clientId: string;
  secretHash: string;
  scopes: string[];
  revoked: boolean;
  /** False when the user no longer belongs to the client's organization (the user left). */
  userIsMember: boolean;
}

/** The client and its user, or undefined when no client has this id. */
export async function findClientAccess(db: Executor, clientId: string): Promise<ClientAccessRecord | undefined> {
  // PostgreSQL text cannot hold NUL, so no client has such an id; the query would fail instead (a 500).
  if (clientId.includes('\u0000')) return undefined;
  const row = await db
    .selectFrom('api_clients as c')
    .leftJoin('users as u', 'u.id', 'c.user_id')
    .select([
      'c.client_id',
      'c.secret_hash',
      'c.scopes',
      'c.revoked_at',
      'c.organization_id',
      'c.user_id',
      'u.organization_id as user_organization_id',
      ...PRINCIPAL_USER_COLUMNS,
    ])
    .where('c.client_id', '=', clientId)
    .executeTakeFirst();
  if (!row) return undefined;
  return {
    // The client's organization: a user who moved elsewhere is no member (above), not another principal.
    ...principalUserOfRow(row),
    clientId: row.client_id,
    secretHash: row.secret_hash,
    scopes: row.scopes,
    revoked: row.revoked_at !== null,
    userIsMember: row.user_organization_id !== null && row.user_organization_id === row.organization_id,
  };
}
