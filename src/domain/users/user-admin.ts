/** Operator actions on users (`certdesk user ...`). Passwords arrive already read, never from argv. */
import { randomUUID } from 'node:crypto';
import type { Executor } from '../../storage/database.js';
import { hashPassword, PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH } from './password.js';
import { findUserByEmail, listUsers, upsertUser } from './user.repository.js';
import { requireOrganization } from '../organizations/organization-admin.js';
import { ProvisioningError } from '../provisioning-error.js';

/** A user as the CLI shows it: never the password hash. */
export interface UserSummary {
  id: string;
  organization_id: string;
  email: string;
  username: string;
  is_admin: boolean;
  has_password: boolean;
  created_at: string;
}

export interface AddUserInput {
  organizationId: string;
  email: string;
  username: string;
  isAdmin: boolean;
  /** null: no web sign-in (API clients only). */
  password: string | null;
}

const EMAIL = /^[^\s@]+@[^\s@]+$/;

export async function addUser(db: Executor, input: AddUserInput): Promise<UserSummary> {
  const org = await requireOrganization(db, input.organizationId);
  const email = input.email.trim();
  if (email.length < 3 || email.length > 320 || !EMAIL.test(email)) throw new ProvisioningError(`not an e-mail address: "${input.email}"`);
  const username = input.username.trim();
  if (username.length < 1 || username.length > 200) throw new ProvisioningError('username must be 1 to 200 characters');
  if (input.password !== null && (input.password.length < PASSWORD_MIN_LENGTH || input.password.length > PASSWORD_MAX_LENGTH)) {
    throw new ProvisioningError(`password must be ${PASSWORD_MIN_LENGTH} to ${PASSWORD_MAX_LENGTH} characters`);
  }
  if (await findUserByEmail(db, email)) throw new ProvisioningError(`a user with e-mail ${email} already exists`);
  const { id } = await upsertUser(db, {
    id: randomUUID(),
    organization_id: org.id,
    email,
    username,
    is_admin: input.isAdmin,
    password_hash: input.password === null ? null : await hashPassword(input.password),
  });
  return summary((await findUserByEmail(db, email))!, id);
}

function summary(u: { id: string; organization_id: string; email: string; username: string; is_admin: boolean; password_hash: string | null; created_at: Date }, id = u.id): UserSummary {
  return { id, organization_id: u.organization_id, email: u.email, username: u.username, is_admin: u.is_admin, has_password: u.password_hash !== null, created_at: u.created_at.toISOString() };
}

export async function listOrganizationUsers(db: Executor, organizationId: string): Promise<UserSummary[]> {
  const org = await requireOrganization(db, organizationId);
  return (await listUsers(db, org.id)).map((u) => summary(u));
}

/** The user with this e-mail in this organization, or a ProvisioningError. */
export async function requireUserInOrganization(db: Executor, organizationId: string, email: string) {
  const user = await findUserByEmail(db, email);
  if (!user || user.organization_id !== organizationId) throw new ProvisioningError(`no user with e-mail ${email.trim()} in organization ${organizationId}`);
  return user;
}
