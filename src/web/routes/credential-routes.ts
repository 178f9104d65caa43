/**
 * API credentials from the organization page: create (post/redirect/get: the POST redirects to a one-time
 * page that shows the secret once; reloading it creates nothing and shows the secret no more), and revoke
 * after a confirmation step. Every POST checks the CSRF token.
 */
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { ALL_PROJECTS } from '../../contract/schemas.js';
import { createApiClient, findApiClient, revokeApiClient } from '../../domain/api-clients/index.js';
import { canManageCredential, checkCredentialForm } from '../credential-policy.js';
import { requireCsrf, requireSession, sessionOf } from '../guards.js';
import { loadOrganizationView } from '../organization-model.js';
import { sendNotFound, sendPage } from '../respond.js';
import { OneTimeSecrets } from '../one-time-secrets.js';
import { credentialCreatedPage, revokeConfirmPage, type CreatedCredentialView } from '../views/credential-pages.js';
import { organizationPage } from '../views/organization-page.js';
import type { WebDeps } from '../web-deps.js';
import { webhookEndpointDepsOf } from './webhook-routes.js';

type ClientParams = { Params: { clientId: string } };

export function credentialRoutes(deps: WebDeps): FastifyPluginAsync {
  /** The credential named in the URL when the signed-in user may manage it and it is still active. */
  async function manageable(req: FastifyRequest<ClientParams>) {
    const session = sessionOf(req);
    const client = await findApiClient(deps.db, req.params.clientId.slice(0, 200));
    return client && !client.revokedAt && canManageCredential(session, client) ? client : null;
  }

  async function guardPost(req: FastifyRequest, reply: FastifyReply): Promise<void> {
    await requireSession(req, reply);
    if (!reply.sent) await requireCsrf(req, reply);
  }

  // In the database: the redirect may reach another instance than the POST (docs/operations.md).
  const created = new OneTimeSecrets<CreatedCredentialView>({ db: deps.db, purpose: 'credential' });

  return async (app) => {
    app.post('/organization/credentials', { preHandler: guardPost }, async (req, reply) => {
      const session = sessionOf(req);
      const body = (req.body ?? {}) as Record<string, unknown>;
      const checked = checkCredentialForm(session, body.name, body.scopes);
      if (!checked.ok) {
        const view = await loadOrganizationView(deps.db, session, webhookEndpointDepsOf(deps));
        view.form = { name: checked.name, scopes: checked.scopes, errors: checked.errors };
        return sendPage(reply, organizationPage(req.web, view), 422);
      }
      const { client, clientSecret } = await createApiClient(deps.db, {
        organizationId: session.organizationId,
        userId: session.userId,
        name: checked.value.name,
        scopes: checked.value.scopes,
      });
      // Logged without the secret; the one-time page is the only place it ever appears.
      req.log.info({ event: 'web.credential_created', clientId: client.clientId, userId: session.userId }, 'API credential created');
      const ordersUrl = `${deps.config.publicBaseUrl}/v1/orders?${new URLSearchParams({ project_id: ALL_PROJECTS, limit: '5' }).toString()}`;
      const ticket = await created.put(session.idHash, {
        name: client.name,
        clientId: client.clientId,
        clientSecret,
        scopes: client.scopes,
        tokenUrl: `${deps.config.issuerUrl}/oauth2/token`,
        ordersUrl,
      });
      return reply.redirect(`/organization/credentials/created/${ticket}`, 303);
    });

    app.get<{ Params: { ticket: string } }>('/organization/credentials/created/:ticket', { preHandler: requireSession }, async (req, reply) => {
      const view = await created.take(sessionOf(req).idHash, req.params.ticket);
      // Seen already (a reload), expired, or not this session's: the credential exists, its secret is gone.
      if (!view) return reply.redirect('/organization#credentials', 303);
      return sendPage(reply, credentialCreatedPage(req.web, view));
    });

    // A reload of the POST's address lands on the organization page rather than a 404.
    app.get('/organization/credentials', { preHandler: requireSession }, async (_req, reply) => reply.redirect('/organization#credentials', 303));

    app.get<ClientParams>('/organization/credentials/:clientId/revoke', { preHandler: requireSession }, async (req, reply) => {
      const client = await manageable(req);
      if (!client) return sendNotFound(req.web, reply);
      return sendPage(reply, revokeConfirmPage(req.web, { name: client.name, clientId: client.clientId, csrfToken: sessionOf(req).csrfToken }));
    });

    app.post<ClientParams>('/organization/credentials/:clientId/revoke', { preHandler: guardPost }, async (req, reply) => {
      const client = await manageable(req);
      if (!client) return sendNotFound(req.web, reply);
      await revokeApiClient(deps.db, client.clientId, client.organizationId);
      // The token service caches client resolutions for a few seconds: this instance forgets at once.
      deps.clientAccess.invalidate(client.clientId);
      req.log.info({ event: 'web.credential_revoked', clientId: client.clientId, userId: sessionOf(req).userId }, 'API credential revoked');
      return reply.redirect(`/organization?revoked=${encodeURIComponent(client.clientId)}#credentials`, 303);
    });
  };
}
