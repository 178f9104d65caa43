/** Operator actions on organizations (`certdesk org ...`). */
import { randomUUID } from 'node:crypto';
import type { Executor } from '../../storage/database.js';
import { findOrganization, listOrganizations, upsertOrganization, type OrganizationRecord } from './organization.repository.js';
import { ProvisioningError } from '../provisioning-error.js';
import { isUuid } from '../uuid.js';

/** Checks an id is a UUID and names an organization; returns it lower-cased. */
export async function requireOrganization(db: Executor, id: string): Promise<OrganizationRecord> {
  if (!isUuid(id)) throw new ProvisioningError(`organization id must be a UUID, got "${id}"`);
  const org = await findOrganization(db, id.toLowerCase());
  if (!org) throw new ProvisioningError(`no organization with id ${id.toLowerCase()}`);
  return org;
}

export function requireName(name: string, what: string): string {
  const trimmed = name.trim();
  if (trimmed.length < 1 || trimmed.length > 200) throw new ProvisioningError(`${what} name must be 1 to 200 characters`);
  return trimmed;
}

/**
 * Creates an organization (a new UUID unless one is given); refuses an id already in use.
 * @example await createOrganization(db, { name: 'Acme Studio' })
 */
export async function createOrganization(db: Executor, input: { name: string; id?: string }): Promise<OrganizationRecord> {
  const name = requireName(input.name, 'organization');
  if (input.id !== undefined && !isUuid(input.id)) throw new ProvisioningError(`--id must be a UUID, got "${input.id}"`);
  const id = (input.id ?? randomUUID()).toLowerCase();
  if (await findOrganization(db, id)) throw new ProvisioningError(`an organization with id ${id} already exists`);
  await upsertOrganization(db, { id, name });
  return (await findOrganization(db, id))!;
}

export { listOrganizations };
