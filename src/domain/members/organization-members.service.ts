/**
 * GET /v1/organizations/{organization_id}/members. Every member of an organization may read its member
 * list (docs/api.md); another organization's id, an unknown one or a malformed one is 404, all alike.
 * Entries are e-mail addresses: the one identifier that is unique and that members recognise (the
 * username is a display name and may repeat).
 */
import type { OrganizationMembersT } from '../../contract/schemas.js';
import type { Executor } from '../../storage/database.js';
import { NotFoundError } from '../errors.js';
import type { Principal } from '../principal.js';
import { normalizeUuid } from '../uuid.js';
import { findOrganizationMembers, type MemberRow } from './organization-members.repository.js';

const byCodePoint = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** E-mails sorted case-insensitively, ties as stored, so the order is total and stable. */
function emails(rows: MemberRow[]): string[] {
  return rows.sort((a, b) => byCodePoint(a.email_key, b.email_key) || byCodePoint(a.email, b.email)).map((r) => r.email);
}

export async function getOrganizationMembers(db: Executor, principal: Principal, organizationId: string): Promise<OrganizationMembersT> {
  const id = normalizeUuid(organizationId);
  if (id === null || id !== principal.organizationId.toLowerCase()) throw new NotFoundError('errors.organization_not_found');
  const rows = await findOrganizationMembers(db, id);
  return {
    org_admins: emails(rows.filter((r) => r.is_admin)),
    not_org_admins: emails(rows.filter((r) => !r.is_admin)),
  };
}
