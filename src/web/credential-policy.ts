/**
 * Who may do what with API credentials from the web application.
 *
 * - Administrators see and revoke every credential of their organization and may grant read and write.
 * - Other members see and revoke only the credentials they created, and may grant read only: a client acts
 *   as its creator, and write access is reserved to administrators (least privilege; the fixture and the
 *   seed files follow the same rule).
 */
import { SCOPES } from '../contract/schemas.js';

export interface CredentialActor {
  userId: string;
  organizationId: string;
  isAdmin: boolean;
}

export interface CredentialOwner {
  userId: string;
  organizationId: string;
}

export const CREDENTIAL_NAME_MAX = 100;

export function grantableScopes(actor: Pick<CredentialActor, 'isAdmin'>): string[] {
  return actor.isAdmin ? [SCOPES.read, SCOPES.write] : [SCOPES.read];
}

export function canManageCredential(actor: CredentialActor, client: CredentialOwner): boolean {
  return client.organizationId === actor.organizationId && (actor.isAdmin || client.userId === actor.userId);
}

export type CredentialFormError = 'web.cred.error_name' | 'web.cred.error_scopes' | 'web.cred.error_write';

export interface CredentialRequest {
  name: string;
  scopes: string[];
}

/** Checks a creation form; returns the cleaned request or the errors to show. */
export function checkCredentialForm(
  actor: Pick<CredentialActor, 'isAdmin'>,
  rawName: unknown,
  rawScopes: unknown,
): { ok: true; value: CredentialRequest } | { ok: false; errors: CredentialFormError[]; name: string; scopes: string[] } {
  const name = typeof rawName === 'string' ? rawName.trim() : '';
  const list = Array.isArray(rawScopes) ? rawScopes : rawScopes === undefined ? [] : [rawScopes];
  const scopes = [...new Set(list.filter((s): s is string => typeof s === 'string'))];
  const errors: CredentialFormError[] = [];
  if (name.length < 1 || name.length > CREDENTIAL_NAME_MAX) errors.push('web.cred.error_name');
  const allowed = grantableScopes(actor);
  if (scopes.length === 0) errors.push('web.cred.error_scopes');
  else if (scopes.some((s) => !allowed.includes(s))) errors.push('web.cred.error_write');
  return errors.length ? { ok: false, errors, name, scopes } : { ok: true, value: { name, scopes } };
}
