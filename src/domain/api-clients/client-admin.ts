/** Operator actions on API clients (`certdesk client ...`), through the api-clients service. */
import { SCOPES } from '../../contract/schemas.js';
import type { Executor } from '../../storage/database.js';
import { ApiClientError, createApiClient, findApiClient, listApiClients, revokeApiClient, type ApiClientRecord } from './index.js';
import { findUserById, listUsers } from '../users/user.repository.js';
import { requireOrganization } from '../organizations/organization-admin.js';
import { ProvisioningError } from '../provisioning-error.js';
import { requireUserInOrganization } from '../users/user-admin.js';

export interface ClientSummary {
  client_id: string;
  organization_id: string;
  user_email: string;
  name: string;
  scopes: string[];
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
}

function summary(c: ApiClientRecord, email: string): ClientSummary {
  return {
    client_id: c.clientId,
    organization_id: c.organizationId,
    user_email: email,
    name: c.name,
    scopes: c.scopes,
    created_at: c.createdAt.toISOString(),
    last_used_at: c.lastUsedAt?.toISOString() ?? null,
    revoked_at: c.revokedAt?.toISOString() ?? null,
  };
}

/** Creates a client acting as the user; the secret is returned here once and never again. */
export async function createClient(
  db: Executor,
  input: { organizationId: string; userEmail: string; name?: string; scopes?: string[] },
): Promise<ClientSummary & { client_secret: string }> {
  const org = await requireOrganization(db, input.organizationId);
  const user = await requireUserInOrganization(db, org.id, input.userEmail);
  try {
    const { client, clientSecret } = await createApiClient(db, {
      organizationId: org.id,
      userId: user.id,
      name: input.name ?? `CLI client for ${user.email}`,
      scopes: input.scopes && input.scopes.length > 0 ? input.scopes : [SCOPES.read],
    });
    return { ...summary(client, user.email), client_secret: clientSecret };
  } catch (err) {
    if (err instanceof ApiClientError) throw new ProvisioningError(err.message);
    throw err;
  }
}

/** Every client of the organization, revoked ones included (with their revocation time). */
export async function listClients(db: Executor, organizationId: string): Promise<ClientSummary[]> {
  const org = await requireOrganization(db, organizationId);
  const emails = new Map((await listUsers(db, org.id)).map((u) => [u.id, u.email]));
  return (await listApiClients(db, { organizationId: org.id, includeRevoked: true })).map((c) => summary(c, emails.get(c.userId) ?? ''));
}

/** Revokes a client: tokens it holds stop working within seconds (docs/oauth.md). */
export async function revokeClient(db: Executor, clientId: string): Promise<ClientSummary> {
  if (!(await revokeApiClient(db, clientId))) throw new ProvisioningError(`no API client with id ${clientId}`);
  const client = (await findApiClient(db, clientId))!;
  const user = await findUserById(db, client.userId);
  return summary(client, user?.email ?? '');
}
