/**
 * The web application's write side, over the same intake services as the API (docs/web.md):
 * - GET  /orders/new                  the upload page (project, title, several files)
 * - POST /orders/uploads              announces one file (announceUpload) → the presigned PUT ticket
 * - POST /orders/new                  creates one order from an upload (createOrderFromUpload)
 * - GET  /orders/{id}/progress        the order's state and analysis lines, polled by the order page
 * - POST /orders/{id}/responses       the customer's answer to Action Required (respondToOrder)
 *
 * The browser sends the bytes straight to object storage with the presigned URL; these routes never see
 * them. The JSON routes answer JSON errors `{"error": "<message in the page language>"}` (never a page),
 * take the session's CSRF token in `X-CSRF-Token` and answer 401 JSON for an ended session. Access rules
 * are the services' own: the same 403 (viewer) and 404 (outside the caller's view) as the API.
 */
import { withoutUnstorable } from '../../http/validation/unstorable-text.js';
import type { RefusedTextAnswer } from '../refused-text.js';
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError, NotFoundError } from '../../domain/errors.js';
import { analysisJobKey } from '../../domain/background/job-kinds.js';
import { unfinishedJobExists } from '../../domain/background/jobs.repository.js';
import { createOrderFromUpload, respondToOrder, UPLOAD_PROBLEM_MESSAGES, UploadRejectedError, type IntakeDeps } from '../../domain/intake/order-intake.service.js';
import { announceUpload, UploadTooLargeError } from '../../domain/intake/upload.service.js';
import { UploadLimitError } from '../../domain/intake/upload-limits.js';
import { findVisibleOrder, listVisibleProjects, sortProjectNames } from '../../domain/orders/index.js';
import { isUuid } from '../../domain/uuid.js';
import { translate } from '../../i18n/index.js';
import { requireSession, sessionOf } from '../guards.js';
import { sendCsrfRefusal, sendNotFound, sendPage } from '../respond.js';
import { presentedToken, tokensMatch } from '../session/csrf.js';
import { messagePage } from '../views/message-page.js';
import { stateClass } from '../views/format.js';
import { formatBytes, uploadPage } from '../views/upload-page.js';
import { principalOf, type WebContext } from '../web-context.js';
import type { WebDeps } from '../web-deps.js';

/** Header that carries the session's CSRF token on the JSON routes. */
export const CSRF_HEADER = 'x-csrf-token';

/** File names and media types a new order's asset may have (the analysis decides on the bytes). */
const ACCEPTED_EXTENSIONS = new Set(['png', 'jpg', 'jpeg', 'webp', 'tif', 'tiff', 'psd']);
const ACCEPTED_TYPES = new Set(['image/png', 'image/jpeg', 'image/webp', 'image/tiff', 'image/vnd.adobe.photoshop', 'image/x-photoshop', 'application/x-photoshop', 'image/psd']);
const CONTENT_TYPE = /^[A-Za-z0-9!#$&^_.+-]+\/[A-Za-z0-9!#$&^_.+-]+$/;

/** A file that may become an order: its extension or its media type names an accepted format. */
export function isAcceptedAsset(fileName: string, contentType: string): boolean {
  const ext = /\.([A-Za-z0-9]+)$/.exec(fileName)?.[1]?.toLowerCase() ?? '';
  return ACCEPTED_EXTENSIONS.has(ext) || ACCEPTED_TYPES.has(contentType.toLowerCase());
}

function sendError(reply: FastifyReply, status: number, message: string): FastifyReply {
  return reply.code(status).header('Cache-Control', 'no-store').send({ error: message });
}

/** Text that cannot be stored (src/web/refused-text.ts), as the upload page's scripts show errors. */
const refusedAsJsonError: RefusedTextAnswer = async (req, reply, refusal) =>
  sendError(reply, 422, req.web.t('web.error.refused_text', { field: withoutUnstorable(refusal.field), character: refusal.character }));

/** A domain refusal as a JSON error in the page language; anything else is rethrown (500 page). */
function sendDomainError(ctx: WebContext, reply: FastifyReply, err: unknown): FastifyReply {
  if (err instanceof UploadRejectedError) return sendError(reply, 422, ctx.t(UPLOAD_PROBLEM_MESSAGES[err.problem].web));
  if (err instanceof ApiError) return sendError(reply, err.statusCode, translate(ctx.lang, err.messageKey, err.vars));
  throw err;
}

/** JSON routes: a live session (else 401 JSON, not the sign-in redirect) and its CSRF token. */
async function requireJsonSession(req: FastifyRequest, reply: FastifyReply): Promise<FastifyReply | undefined> {
  const session = req.web.session;
  if (!session) return sendError(reply, 401, req.web.t('web.upload.signed_out'));
  if (!tokensMatch(session.csrfToken, req.headers[CSRF_HEADER])) return sendError(reply, 403, req.web.t('web.error.csrf'));
  return undefined;
}

function isJson(req: FastifyRequest): boolean {
  return /^application\/json\b/i.test(req.headers['content-type'] ?? '');
}

function bodyOf(req: FastifyRequest): Record<string, unknown> {
  return req.body && typeof req.body === 'object' && !Array.isArray(req.body) ? (req.body as Record<string, unknown>) : {};
}

export function uploadRoutes(deps: WebDeps): FastifyPluginAsync {
  return async (app) => {
    const intakeDeps = (): IntakeDeps => ({ db: deps.db, clock: deps.clock, storage: deps.storage, orders: deps.orders, onJobQueued: deps.onJobQueued });

    app.get('/orders/new', { preHandler: requireSession }, async (req, reply) => {
      const principal = principalOf(sessionOf(req));
      const visible = await listVisibleProjects(deps.db, principal);
      const order = sortProjectNames(visible.map((p) => p.name));
      const projects = [...visible].sort((a, b) => order.indexOf(a.name) - order.indexOf(b.name));
      return sendPage(reply, uploadPage(req.web, { projects, isAdmin: principal.isAdmin, maxUploadBytes: deps.config.maxUploadBytes }));
    });

    app.post('/orders/uploads', { preHandler: requireJsonSession, config: { refusedText: refusedAsJsonError } }, async (req, reply) => {
      const t = req.web.t;
      const body = bodyOf(req);
      const fileName = typeof body.file_name === 'string' ? body.file_name.trim() : '';
      const size = body.size;
      const given = typeof body.content_type === 'string' ? body.content_type.trim() : '';
      const contentType = CONTENT_TYPE.test(given) && given.length <= 255 ? given : 'application/octet-stream';
      if (!fileName || fileName.length > 1000 || typeof size !== 'number' || !Number.isSafeInteger(size) || size < 0) {
        return sendError(reply, 400, t('web.upload.invalid'));
      }
      if (size === 0) return sendError(reply, 422, t('web.upload.empty_file', { name: fileName }));
      // An order's asset must look like an image format the analysis accepts; evidence may be anything.
      if (body.purpose !== 'evidence' && !isAcceptedAsset(fileName, contentType)) {
        return sendError(reply, 422, t('web.upload.unsupported', { name: fileName }));
      }
      try {
        const ticket = await announceUpload(
          { db: deps.db, clock: deps.clock, presigner: deps.uploadPresigner, maxUploadBytes: deps.config.maxUploadBytes, uploadTtlSeconds: deps.config.uploadTtlSeconds, limits: deps.uploadLimits },
          principalOf(sessionOf(req)),
          { file_name: fileName, content_type: contentType, size },
        );
        return reply.code(201).header('Cache-Control', 'no-store').send(ticket);
      } catch (err) {
        if (err instanceof UploadTooLargeError) {
          return sendError(reply, 422, t('web.upload.too_large', { name: fileName, limit: formatBytes(req.web.lang, err.limit) }));
        }
        if (err instanceof UploadLimitError) {
          return sendError(reply.header('Retry-After', String(err.retryAfterSeconds)), 429, translate(req.web.lang, err.messageKey, err.vars));
        }
        throw err;
      }
    });

    app.post('/orders/new', { preHandler: requireJsonSession, config: { refusedText: refusedAsJsonError } }, async (req, reply) => {
      const t = req.web.t;
      const body = bodyOf(req);
      const title = typeof body.order_title === 'string' ? body.order_title.trim() : '';
      const projectId = body.project_id === null || body.project_id === '' || body.project_id === undefined ? null : body.project_id;
      if (!title) return sendError(reply, 422, t('web.upload.no_title'));
      if (title.length > 1000 || typeof body.upload_id !== 'string' || !isUuid(body.upload_id) || (projectId !== null && (typeof projectId !== 'string' || !isUuid(projectId)))) {
        return sendError(reply, 400, t('web.upload.invalid'));
      }
      try {
        const order = await createOrderFromUpload(intakeDeps(), principalOf(sessionOf(req)), { upload_id: body.upload_id, project_id: projectId, order_title: title });
        return reply
          .code(201)
          .header('Location', `/orders/${encodeURIComponent(order.order_id)}`)
          .header('Cache-Control', 'no-store')
          .send({ order_id: order.order_id, order_title: order.order_title, order_state: order.order_state, order_url: `/orders/${encodeURIComponent(order.order_id)}` });
      } catch (err) {
        return sendDomainError(req.web, reply, err);
      }
    });

    app.get<{ Params: { orderId: string } }>('/orders/:orderId/progress', async (req, reply) => {
      const session = req.web.session;
      if (!session) return sendError(reply, 401, req.web.t('web.upload.signed_out'));
      const order = await findVisibleOrder(deps.orders, principalOf(session), req.params.orderId);
      if (!order) return sendError(reply, 404, translate(req.web.lang, 'errors.order_not_found'));
      // In Progress is settled once no analysis job is queued or running: the order waits for a person.
      const analysing = order.order_state === 'In Progress' && (await unfinishedJobExists(deps.db, analysisJobKey(order.order_id)));
      return reply.header('Cache-Control', 'no-store').send({
        order_id: order.order_id,
        order_state: order.order_state,
        state_class: stateClass(order.order_state),
        analysing,
        settled: !analysing,
        asset_preview_url: order.asset_preview_url ?? null,
        analysis_list: (order.analysis_list ?? []).map((l) => ({ analysis_type: l.analysis_type, analysis_passed: l.analysis_passed })),
      });
    });

    app.post<{ Params: { orderId: string } }>('/orders/:orderId/responses', { config: { refusedText: async (req, reply, refusal) => (isJson(req) ? refusedAsJsonError(req, reply, refusal) : null) } }, async (req, reply) => {
      const ctx = req.web;
      const json = isJson(req);
      const session = ctx.session;
      if (!session) return json ? sendError(reply, 401, ctx.t('web.upload.signed_out')) : reply.redirect('/sign-in', 303);
      const presented = json ? req.headers[CSRF_HEADER] : presentedToken(req.body);
      if (!tokensMatch(session.csrfToken, presented)) return json ? sendError(reply, 403, ctx.t('web.error.csrf')) : sendCsrfRefusal(ctx, reply);
      const body = bodyOf(req);
      const message = typeof body.message === 'string' ? body.message.trim() : '';
      const uploadIds = Array.isArray(body.upload_ids) ? body.upload_ids : [];
      const refuse = (status: number, text: string) =>
        json ? sendError(reply, status, text) : sendPage(reply, messagePage(ctx, ctx.t('web.respond.title'), text), status);
      if (!message) return refuse(422, ctx.t('web.respond.no_message'));
      if (message.length > 10000 || uploadIds.length > 20 || !uploadIds.every((id): id is string => typeof id === 'string' && isUuid(id))) {
        return refuse(400, ctx.t('web.upload.invalid'));
      }
      try {
        const order = await respondToOrder(intakeDeps(), principalOf(session), req.params.orderId, { message, upload_ids: uploadIds });
        if (!json) return reply.redirect(`/orders/${encodeURIComponent(order.order_id)}?responded=1`, 303);
        return reply.code(201).header('Cache-Control', 'no-store').send({ order_id: order.order_id, order_state: order.order_state, state_class: stateClass(order.order_state) });
      } catch (err) {
        if (!json && err instanceof NotFoundError) return sendNotFound(ctx, reply);
        if (json) return sendDomainError(ctx, reply, err);
        if (err instanceof UploadRejectedError) return refuse(422, ctx.t(UPLOAD_PROBLEM_MESSAGES[err.problem].web));
        if (err instanceof ApiError) return refuse(err.statusCode, translate(ctx.lang, err.messageKey, err.vars));
        throw err;
      }
    });
  };
}
