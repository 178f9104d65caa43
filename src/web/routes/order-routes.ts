/** The orders dashboard and the order page, read through the same domain functions as GET /v1/orders. */
import type { FastifyPluginAsync } from 'fastify';
import { ALL_PROJECTS } from '../../contract/schemas.js';
import {
  findVisibleOrder,
  InvalidPageTokenError,
  listOrders,
  listVisibleProjects,
  OrderScopeNotFoundError,
  sortProjectNames,
  toOrderPreviewObject,
} from '../../domain/orders/index.js';
import { getOrderHistory } from '../../domain/history/order-history.service.js';
import { latestEvidenceRequestNote } from '../../domain/review/index.js';
import { findOrderCertificate } from '../../domain/certificates/index.js';
import { attachmentDisposition, openCredentialedFile } from '../../domain/content-credentials/credentialed-file.js';
import { ApiError } from '../../domain/errors.js';
import { translate } from '../../i18n/index.js';
import { requireSession, sessionOf } from '../guards.js';
import { sendNotFound, sendPage } from '../respond.js';
import { orderPage } from '../views/order-page.js';
import { ordersHref, ordersPage } from '../views/orders-page.js';
import { principalOf } from '../web-context.js';
import type { WebDeps } from '../web-deps.js';

/** Cards per dashboard page. */
export const DASHBOARD_PAGE_SIZE = 24;

export function orderRoutes(deps: WebDeps): FastifyPluginAsync {
  return async (app) => {
    app.addHook('preHandler', requireSession);

    app.get<{ Querystring: { project?: string; page_token?: string } }>('/orders', async (req, reply) => {
      const principal = principalOf(sessionOf(req));
      const filter = typeof req.query.project === 'string' && req.query.project !== '' ? req.query.project : ALL_PROJECTS;
      const pageToken = typeof req.query.page_token === 'string' && req.query.page_token !== '' ? req.query.page_token : null;
      let listing;
      try {
        listing = await listOrders(deps.orders, principal, { projectId: filter, preview: true, pageToken, limit: DASHBOARD_PAGE_SIZE });
      } catch (err) {
        if (err instanceof OrderScopeNotFoundError) return sendNotFound(req.web, reply);
        // A stale or edited page link: start the same filter again from its first page.
        if (err instanceof InvalidPageTokenError) return reply.redirect(ordersHref(filter), 303);
        throw err;
      }
      const visible = await listVisibleProjects(deps.db, principal);
      const order = sortProjectNames(visible.map((p) => p.name));
      const projects = [...visible].sort((a, b) => order.indexOf(a.name) - order.indexOf(b.name));
      return sendPage(
        reply,
        ordersPage(req.web, {
          filter: projects.find((p) => p.id === filter.toLowerCase())?.id ?? filter,
          projects,
          stats: listing.stats,
          orders: listing.orders.map(toOrderPreviewObject),
          nextPageToken: listing.nextPageToken,
          isFirstPage: pageToken === null,
        }),
      );
    });

    app.get<{ Params: { orderId: string }; Querystring: { responded?: string } }>('/orders/:orderId', async (req, reply) => {
      const principal = principalOf(sessionOf(req));
      const order = await findVisibleOrder(deps.orders, principal, req.params.orderId);
      if (!order) return sendNotFound(req.web, reply);
      // The history is for organization administrators (DECISIONS 9); members read it through the API.
      const history = principal.isAdmin ? (await getOrderHistory(deps.db, principal, order.order_id))?.events : undefined;
      // Ask for evidence: the reviewer's note is shown to the customer while the order waits for them.
      const evidenceRequest = order.order_state === 'Action Required' ? await latestEvidenceRequestNote(deps.db, order.order_id) : null;
      // Revoked certificates hand out no credentialed file (the link is offered only while it can be had).
      const certificate = order.order_state === 'Human Certified' ? await findOrderCertificate(deps.db, principal, order.order_id) : null;
      const contentCredentials = certificate && !certificate.revoked_at ? certificate.content_credentials : null;
      return sendPage(reply, orderPage(req.web, order, { responded: req.query.responded === '1', evidenceRequest, contentCredentials, ...(history ? { history } : {}) }));
    });

    // "Download with Content Credentials": the file of GET /v1/orders/{id}/certificate/file, for the signed-in user.
    app.get<{ Params: { orderId: string } }>('/orders/:orderId/certificate/file', async (req, reply) => {
      const principal = principalOf(sessionOf(req));
      try {
        const file = await openCredentialedFile(deps.db, deps.storage, principal, req.params.orderId);
        return reply
          .header('Cache-Control', 'no-store')
          .header('Content-Disposition', attachmentDisposition(file.fileName))
          .header('Content-Length', String(file.size))
          .header('X-Content-Type-Options', 'nosniff')
          .type(file.mediaType)
          .send(file.body);
      } catch (err) {
        if (err instanceof ApiError && err.statusCode === 404) return sendNotFound(req.web, reply);
        if (err instanceof ApiError) {
          for (const [name, value] of Object.entries(err.headers)) reply.header(name, value);
          return reply.code(err.statusCode).type('text/plain; charset=utf-8').send(translate(req.web.lang, err.messageKey, err.vars));
        }
        throw err;
      }
    });
  };
}
