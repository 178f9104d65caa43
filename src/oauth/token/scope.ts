/** Scope parameter rules (RFC 6749 3.3): space-delimited tokens, a subset of the client's scopes. */
import { InvalidScope } from '../errors.js';
import { oauthMessages } from '../messages.js';

// scope-token = 1*( %x21 / %x23-5B / %x5D-7E )
const SCOPE_TOKEN = /^[\x21\x23-\x5B\x5D-\x7E]+$/;

export interface GrantedScope {
  scopes: string[];
  /** True when the response must state the scope (RFC 6749 5.1: it differs from the request). */
  differsFromRequest: boolean;
}

/**
 * The scopes to grant: the requested ones (duplicates dropped) when all are the client's, or all of
 * the client's scopes when none is requested.
 */
export function grantScope(requested: string | undefined, clientScopes: readonly string[]): GrantedScope {
  if (requested === undefined) return { scopes: [...clientScopes], differsFromRequest: true };
  const tokens = requested.split(' ');
  if (tokens.some((t) => !SCOPE_TOKEN.test(t))) throw new InvalidScope(oauthMessages.scopeInvalid);
  const allowed = new Set(clientScopes);
  if (tokens.some((t) => !allowed.has(t))) throw new InvalidScope(oauthMessages.scopeInvalid);
  const scopes = [...new Set(tokens)];
  return { scopes, differsFromRequest: scopes.join(' ') !== requested };
}
