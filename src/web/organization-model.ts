/** Gathers what the organization page shows for a signed-in user (no HTML here, no SQL either). */
import { listApiClients } from '../domain/api-clients/index.js';
import { findOrganization } from '../domain/organizations/organization.repository.js';
import type { SessionWithUser } from '../domain/sessions/index.js';
import { listUsers } from '../domain/users/user.repository.js';
import { listWebhookEndpoints, type WebhookEndpointDeps } from '../domain/webhooks/webhook-endpoints.service.js';
import type { Executor } from '../storage/database.js';
import { principalOf } from './web-context.js';
import type { OrganizationView } from './views/organization-page.js';

/** `webhooks`: the service's dependencies; administrators also see the organization's webhook endpoints. */
export async function loadOrganizationView(db: Executor, session: SessionWithUser, webhooks: WebhookEndpointDeps): Promise<OrganizationView> {
  const [organization, users, clients, endpoints] = await Promise.all([
    findOrganization(db, session.organizationId),
    listUsers(db, session.organizationId),
    // Administrators manage every credential of the organization; members only the ones they created.
    listApiClients(db, { organizationId: session.organizationId, userId: session.isAdmin ? undefined : session.userId }),
    // Only administrators manage endpoints (the service's rule); other members do not get the section at all.
    session.isAdmin ? listWebhookEndpoints(webhooks, principalOf(session)).then((r) => r.webhook_endpoints) : Promise.resolve(null),
  ]);
  const emailOf = new Map(users.map((u) => [u.id, u.email]));
  const member = (u: (typeof users)[number]) => ({ email: u.email, username: u.username });
  return {
    organizationId: session.organizationId,
    name: organization?.name ?? '',
    admins: users.filter((u) => u.is_admin).map(member),
    others: users.filter((u) => !u.is_admin).map(member),
    credentials: clients.map((c) => ({
      clientId: c.clientId,
      name: c.name,
      createdBy: emailOf.get(c.userId) ?? '—',
      scopes: c.scopes,
      createdAt: c.createdAt,
      lastUsedAt: c.lastUsedAt,
    })),
    webhookEndpoints: endpoints,
    isAdmin: session.isAdmin,
    csrfToken: session.csrfToken,
  };
}
