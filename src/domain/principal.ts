/**
 * Who is calling: the user an API client acts for (or a signed-in web user), resolved from the database on
 * each request (cached at most 5 s), never trusted from a token's claims alone.
 */
export interface Principal {
  userId: string;
  organizationId: string;
  email: string;
  /** lower(email): owner key of personal orders. */
  emailKey: string;
  username: string;
  isAdmin: boolean;
  /** The API client behind a bearer token; null for a web session. */
  clientId: string | null;
  /** Scopes granted to this request (token scopes; every scope for a web session's own reads). */
  scopes: string[];
}

/** The user behind a Principal: what its `users` row says. */
export type PrincipalUser = Omit<Principal, 'clientId' | 'scopes'>;

/**
 * The `users` columns a Principal is made of, as repositories select them (`u.id as user_id`). Null
 * columns (a left join that found no user) become empty values, which no scope check or query matches.
 */
export interface PrincipalUserRow {
  user_id: string;
  organization_id: string;
  email: string | null;
  email_key: string | null;
  username: string | null;
  is_admin: boolean | null;
}

/** The columns of `users as u` besides id and organization a PrincipalUserRow needs (its query picks those two). */
export const PRINCIPAL_USER_COLUMNS = ['u.email', 'u.email_key', 'u.username', 'u.is_admin'] as const;

/** The one row → Principal mapping: the user's fields of a database row. */
export function principalUserOfRow(row: PrincipalUserRow): PrincipalUser {
  return {
    userId: row.user_id,
    organizationId: row.organization_id,
    email: row.email ?? '',
    emailKey: row.email_key ?? '',
    username: row.username ?? '',
    isAdmin: row.is_admin ?? false,
  };
}

/** The Principal of a user acting through `clientId` (null: a web session) with `scopes`; frozen. */
export function principalFor(user: PrincipalUser, clientId: string | null, scopes: readonly string[]): Principal {
  return Object.freeze({
    userId: user.userId,
    organizationId: user.organizationId,
    email: user.email,
    emailKey: user.emailKey,
    username: user.username,
    isAdmin: user.isAdmin,
    clientId,
    scopes: Object.freeze([...scopes]) as string[],
  });
}
