/**
 * The reviewers' pages and the review page's JSON endpoints (docs/review.md). Every route answers only
 * reviewers: anyone else signed in gets 404, exactly as for a page that does not exist. Forms carry the
 * session's CSRF token in `_csrf`; the JSON endpoints carry it in the `X-CSRF-Token` header.
 */
import { Ajv, type ValidateFunction } from 'ajv';
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { ReviewClaimRequest, ReviewEditsRequest, type ReviewClaimRequestT, type ReviewEditsRequestT } from '../../contract/review-schemas.js';
import { MAX_REVOCATION_REASON } from '../../domain/certificates/index.js';
import { ApiError } from '../../domain/errors.js';
import {
  CLAIM_TTL_MS,
  decide,
  isDecision,
  isReviewer,
  loadQueue,
  loadReviewMaterial,
  openForReview,
  OwnOrganizationError,
  releaseClaim,
  renewClaim,
  reviewCertificateOf,
  revokeOrderCertificate,
  saveEdits,
  type CertificateIssuer,
  type Reviewer,
} from '../../domain/review/index.js';
import type { SessionWithUser } from '../../domain/sessions/index.js';
import { ajvErrorsToIssues } from '../../http/validation/ajv-issues.js';
import { BODY_AJV_OPTIONS } from '../../http/validation/validator-factory.js';
import { renderValidationIssues } from '../../http/validation/render.js';
import { translate, type MessageKey } from '../../i18n/index.js';
import { html } from '../html.js';
import { requireCsrf, requireSession, sessionOf } from '../guards.js';
import { sendNotFound, sendPage } from '../respond.js';
import { tokensMatch } from '../session/csrf.js';
import { messagePage } from '../views/message-page.js';
import type { RefusedTextAnswer } from '../refused-text.js';
import { reviewOrderHref, reviewOrderPage } from '../views/review-order-page.js';
import { reviewQueuePage } from '../views/review-queue-page.js';
import type { WebDeps } from '../web-deps.js';

/** Header of the JSON endpoints' CSRF token (the page's `data-csrf`). */
export const CSRF_HEADER = 'x-csrf-token';

/** The JSON endpoints (errors as `{"detail"}`, CSRF in the header); the other routes are pages and forms. */
const JSON_ROUTES = new Set(['/review/orders/:orderId/claim/renew', '/review/orders/:orderId/edits']);

export interface ReviewRouteDeps extends WebDeps {
  issueCertificate: CertificateIssuer;
  /** Claim length (tests shorten nothing: they move the clock). */
  claimTtlMs?: number;
}

// Defaults are not applied: a field left out of an edit must stay as it is, not become [] or 0.
const ajv = new Ajv({ ...BODY_AJV_OPTIONS, useDefaults: false, coerceTypes: false });
const validateEdits = ajv.compile(ReviewEditsRequest) as ValidateFunction<ReviewEditsRequestT>;
const validateClaim = ajv.compile(ReviewClaimRequest) as ValidateFunction<ReviewClaimRequestT>;

function reviewerOf(session: SessionWithUser): Reviewer {
  return { userId: session.userId, organizationId: session.organizationId, email: session.email, username: session.username };
}

function sendJsonDetail(req: FastifyRequest, reply: FastifyReply, status: number, key: MessageKey, vars = {}): FastifyReply {
  return reply.code(status).type('application/json; charset=utf-8').send({ detail: translate(req.web.lang, key, vars) });
}

function sendJsonError(req: FastifyRequest, reply: FastifyReply, err: unknown): FastifyReply {
  if (err instanceof ApiError) return sendJsonDetail(req, reply, err.statusCode, err.messageKey, err.vars);
  throw err;
}

/** A JSON body validated against `validate`, or null after a 422 was sent. */
function validBody<T>(req: FastifyRequest, reply: FastifyReply, validate: ValidateFunction<T>): T | null {
  const body = req.body;
  if (validate(body)) return body;
  const issues = ajvErrorsToIssues(validate.errors ?? [], body);
  void reply.code(422).type('application/json; charset=utf-8').send(renderValidationIssues(issues, req.web.lang));
  return null;
}

export function reviewRoutes(deps: ReviewRouteDeps): FastifyPluginAsync {
  const reviewDeps = { db: deps.db, clock: deps.clock, issueCertificate: deps.issueCertificate, claimTtlMs: deps.claimTtlMs };
  // The page renews well before the claim ends: a third of its length.
  const renewEveryMs = Math.floor((deps.claimTtlMs ?? CLAIM_TTL_MS) / 3);
  const isJson = (req: FastifyRequest) => JSON_ROUTES.has(req.routeOptions.url ?? '');

  return async (app) => {
    app.addHook('preHandler', async (req, reply) => {
      if (!req.web.session) {
        if (isJson(req)) return sendJsonDetail(req, reply, 401, 'errors.not_authenticated');
        return requireSession(req, reply);
      }
      // Not a reviewer: the review area does not exist for them.
      if (!(await isReviewer(deps.db, req.web.session.userId))) {
        return isJson(req) ? sendJsonDetail(req, reply, 404, 'errors.not_found') : sendNotFound(req.web, reply);
      }
      if (req.method !== 'GET') {
        if (isJson(req)) {
          if (!tokensMatch(req.web.session.csrfToken, req.headers[CSRF_HEADER])) return sendJsonDetail(req, reply, 403, 'errors.forbidden');
        } else {
          return requireCsrf(req, reply);
        }
      }
    });

    app.get<{ Querystring: { organization?: string; came_back?: string } }>('/review', async (req, reply) => {
      const organizationId = typeof req.query.organization === 'string' && req.query.organization !== '' ? req.query.organization.toLowerCase() : null;
      const cameBack = req.query.came_back === '1' || req.query.came_back === 'true';
      const queue = await loadQueue(deps, reviewerOf(sessionOf(req)), { organizationId, cameBack });
      return sendPage(reply, reviewQueuePage(req.web, queue, { organizationId, cameBack }));
    });

    const showOrder = async (
      req: FastifyRequest,
      reply: FastifyReply,
      orderId: string,
      error: string | null = null,
      status = 200,
      revocationError: string | null = null,
    ) => {
      const ctx = req.web;
      try {
        const reviewer = reviewerOf(sessionOf(req));
        const open = await openForReview(reviewDeps, reviewer, orderId);
        const material = await loadReviewMaterial(deps.orders, orderId);
        const certificate = await reviewCertificateOf(deps.db, reviewer, orderId);
        return sendPage(reply, reviewOrderPage(ctx, material, open, { error, renewEveryMs, certificate, revocationError }), status);
      } catch (err) {
        if (err instanceof OwnOrganizationError) return sendPage(reply, messagePage(ctx, ctx.t('web.review.own_org_title'), translate(ctx.lang, err.messageKey)), 403);
        if (err instanceof ApiError && err.statusCode === 404) return sendNotFound(ctx, reply);
        throw err;
      }
    };

    app.get<{ Params: { orderId: string } }>('/review/orders/:orderId', async (req, reply) => showOrder(req, reply, req.params.orderId));

    // Text that cannot be stored in the note (src/web/refused-text.ts): the review page again with the form's error.
    const refusedNote: RefusedTextAnswer = async (req, reply, refusal) =>
      refusal.field === 'orderId' ? null : showOrder(req, reply, (req.params as { orderId: string }).orderId, req.web.t('web.form.refused_text', { character: refusal.character }), 422);
    app.post<{ Params: { orderId: string }; Body: Record<string, unknown> }>('/review/orders/:orderId/decision', { config: { refusedText: refusedNote } }, async (req, reply) => {
      const ctx = req.web;
      const body = req.body ?? {};
      const note = typeof body.note === 'string' ? body.note.trim() : '';
      const claimId = typeof body.claim_id === 'string' ? body.claim_id : '';
      const decision = body.decision;
      if (!isDecision(decision) || note === '' || note.length > 10_000) return showOrder(req, reply, req.params.orderId, ctx.t('web.review.note_required'), 422);
      try {
        const result = await decide(reviewDeps, reviewerOf(sessionOf(req)), req.params.orderId, { decision, note, claimId });
        // The order's review page stays reachable: after Certify it shows the certificate and its Revoke control.
        const message = html`${ctx.t('web.review.decided', { state: result.to })} <a href="${reviewOrderHref(req.params.orderId)}" data-review-order-link>${ctx.t('web.review.open_order')}</a>`;
        return sendPage(reply, messagePage(ctx, ctx.t('web.review.decided_title'), message, 'status'));
      } catch (err) {
        if (err instanceof ApiError && err.statusCode === 404) return sendNotFound(ctx, reply);
        if (err instanceof OwnOrganizationError) return sendPage(reply, messagePage(ctx, ctx.t('web.review.own_org_title'), translate(ctx.lang, err.messageKey)), 403);
        if (err instanceof ApiError) {
          return sendPage(reply, messagePage(ctx, ctx.t('web.review.refused_title'), translate(ctx.lang, err.messageKey, err.vars)), err.statusCode);
        }
        throw err;
      }
    });

    // Revoking the order's certificate (docs/review.md "Revoking a certificate"): a form with the session's
    // CSRF token and a required reason; final. Redirects to the review page, which shows the revocation.
    const refusedReason: RefusedTextAnswer = async (req, reply, refusal) =>
      refusal.field === 'orderId' ? null : showOrder(req, reply, (req.params as { orderId: string }).orderId, null, 422, req.web.t('web.form.refused_text', { character: refusal.character }));
    app.post<{ Params: { orderId: string }; Body: Record<string, unknown> }>('/review/orders/:orderId/certificate/revoke', { config: { refusedText: refusedReason } }, async (req, reply) => {
      const ctx = req.web;
      const reason = typeof req.body?.reason === 'string' ? req.body.reason.trim() : '';
      if (reason === '' || [...reason].length > MAX_REVOCATION_REASON) {
        return showOrder(req, reply, req.params.orderId, null, 422, ctx.t('web.review.revoke_reason_required', { max: MAX_REVOCATION_REASON }));
      }
      try {
        await revokeOrderCertificate(reviewDeps, reviewerOf(sessionOf(req)), req.params.orderId, reason);
        return reply.redirect(`${reviewOrderHref(req.params.orderId)}#certificate-title`, 303);
      } catch (err) {
        if (err instanceof OwnOrganizationError) return sendPage(reply, messagePage(ctx, ctx.t('web.review.own_org_title'), translate(ctx.lang, err.messageKey)), 403);
        if (err instanceof ApiError && err.statusCode === 404) return sendNotFound(ctx, reply);
        if (err instanceof ApiError) {
          return sendPage(reply, messagePage(ctx, ctx.t('web.review.revoke_refused_title'), translate(ctx.lang, err.messageKey, err.vars)), err.statusCode);
        }
        throw err;
      }
    });

    app.post<{ Params: { orderId: string }; Body: Record<string, unknown> }>('/review/orders/:orderId/claim/release', async (req, reply) => {
      const claimId = typeof req.body?.claim_id === 'string' ? req.body.claim_id : '';
      try {
        await releaseClaim(reviewDeps, reviewerOf(sessionOf(req)), req.params.orderId, claimId);
      } catch (err) {
        if (err instanceof ApiError && err.statusCode === 404) return sendNotFound(req.web, reply);
        if (!(err instanceof OwnOrganizationError)) throw err;
      }
      return reply.redirect('/review', 303);
    });

    app.post<{ Params: { orderId: string } }>('/review/orders/:orderId/claim/renew', async (req, reply) => {
      const body = validBody(req, reply, validateClaim);
      if (!body) return reply;
      try {
        const claim = await renewClaim(reviewDeps, reviewerOf(sessionOf(req)), req.params.orderId, body.claim_id);
        return { claim_id: claim.claimId, expires_at: claim.expiresAt.toISOString() };
      } catch (err) {
        return sendJsonError(req, reply, err);
      }
    });

    app.put<{ Params: { orderId: string } }>('/review/orders/:orderId/edits', async (req, reply) => {
      const body = validBody(req, reply, validateEdits);
      if (!body) return reply;
      try {
        const { claim_id: claimId, ...edits } = body;
        return await saveEdits(reviewDeps, reviewerOf(sessionOf(req)), req.params.orderId, claimId, edits);
      } catch (err) {
        return sendJsonError(req, reply, err);
      }
    });
  };
}
