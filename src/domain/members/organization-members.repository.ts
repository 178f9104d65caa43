/** Users of an organization, as the member list shows them. */
import type { Executor } from '../../storage/database.js';

export interface MemberRow {
  email: string;
  email_key: string;
  is_admin: boolean;
}

export async function findOrganizationMembers(db: Executor, organizationId: string): Promise<MemberRow[]> {
  return db.selectFrom('users').select(['email', 'email_key', 'is_admin']).where('organization_id', '=', organizationId).execute();
}
