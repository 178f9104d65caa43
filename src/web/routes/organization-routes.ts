/** GET /organization: the organization page (the interface's {organization_page}). */
import type { FastifyPluginAsync } from 'fastify';
import { findApiClient } from '../../domain/api-clients/index.js';
import { canManageCredential } from '../credential-policy.js';
import { requireSession, sessionOf } from '../guards.js';
import { loadOrganizationView } from '../organization-model.js';
import { sendPage } from '../respond.js';
import { organizationPage } from '../views/organization-page.js';
import type { WebDeps } from '../web-deps.js';
import { webhookEndpointDepsOf } from './webhook-routes.js';

export function organizationRoutes(deps: WebDeps): FastifyPluginAsync {
  return async (app) => {
    app.addHook('preHandler', requireSession);

    app.get<{ Querystring: { revoked?: string; webhook?: string } }>('/organization', async (req, reply) => {
      const session = sessionOf(req);
      const view = await loadOrganizationView(deps.db, session, webhookEndpointDepsOf(deps));
      // The notice names the credential by looking it up, so a crafted link cannot put text on the page.
      const revokedId = typeof req.query.revoked === 'string' ? req.query.revoked.slice(0, 200) : '';
      if (revokedId) {
        const client = await findApiClient(deps.db, revokedId);
        if (client?.revokedAt && canManageCredential(session, client)) view.notice = req.web.t('web.cred.revoked', { name: client.name });
      }
      // A fixed notice after a webhook endpoint was deleted (no text comes from the link).
      if (req.query.webhook === 'deleted' && view.webhookEndpoints) view.notice = req.web.t('web.wh.notice_deleted');
      return sendPage(reply, organizationPage(req.web, view));
    });
  };
}
