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
