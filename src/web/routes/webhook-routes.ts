/**
 * Webhook endpoints from the organization page (DECISIONS 10, docs/webhooks.md "On the organization
 * page"): add, edit, enable/disable, delete (after a confirmation page), rotate the secret (shown once,
 * post/redirect/get through OneTimeSecrets), the delivery log with "Send again", and "Send test event".
 * Every action goes through the API's domain service (src/domain/webhooks/webhook-endpoints.service.ts)
 * with the signed-in user as the principal, so its rules are the API's: administrators only (403 page),
 * the caller's organization only (another organization's endpoint is the 404 page). Every POST checks the
 * CSRF token first.
 */
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { ForbiddenError, NotFoundError } from '../../domain/errors.js';
import {
  createWebhookEndpoint,
  deleteWebhookEndpoint,
  getWebhookEndpoint,
  InvalidDeliveryPageTokenError,
  listWebhookDeliveries,
  requireWebhookAdmin,
  retryWebhookDelivery,
  rotateWebhookSecret,
  sendTestWebhookEvent,
  updateWebhookEndpoint,
  WebhookEndpointDisabledError,
  type WebhookEndpointDeps,
} from '../../domain/webhooks/webhook-endpoints.service.js';
import { WebhookUrlRefusedError } from '../../domain/webhooks/webhook-url.js';
import { translate } from '../../i18n/index.js';
import { requireCsrf, requireSession, sessionOf } from '../guards.js';
import { OneTimeSecrets } from '../one-time-secrets.js';
import { sendNotFound, sendPage } from '../respond.js';
import { messagePage } from '../views/message-page.js';
import { webhookDeletePage, webhookEndpointPage, webhookFormPage, webhookHref, webhookSecretPage, type WebhookFormView, type WebhookSecretView } from '../views/webhook-pages.js';
import { principalOf } from '../web-context.js';
import { checkCreateWebhookForm, checkUpdateWebhookForm, readWebhookForm, type WebhookField, type WebhookFormCheck, type WebhookFormInput } from '../webhook-form.js';
import { withoutUnstorable } from '../../http/validation/unstorable-text.js';
import type { RefusedTextAnswer } from '../refused-text.js';
import type { WebDeps } from '../web-deps.js';

/** Deliveries per page of the log. */
export const DELIVERY_LOG_PAGE_SIZE = 20;

/** The notices an action redirects with (`?done=`): a fixed list, so a crafted link cannot put text on the page. */
const NOTICES = {
  updated: 'web.wh.notice_updated',
  enabled: 'web.wh.notice_enabled',
  disabled: 'web.wh.notice_disabled',
  test: 'web.wh.notice_test',
  retry: 'web.wh.notice_retry',
} as const;

type EndpointParams = { Params: { endpointId: string } };

export function webhookEndpointDepsOf(deps: WebDeps): WebhookEndpointDeps {
  return { db: deps.db, masterKey: deps.config.masterKey, allowPrivate: deps.config.webhookAllowPrivate };
}

export function webhookRoutes(deps: WebDeps): FastifyPluginAsync {
  const service = webhookEndpointDepsOf(deps);
  const secrets = new OneTimeSecrets<WebhookSecretView>({ db: deps.db, purpose: 'webhook-secret' });

  async function guardPost(req: FastifyRequest, reply: FastifyReply): Promise<void> {
    await requireSession(req, reply);
    if (!reply.sent) await requireCsrf(req, reply);
  }

  /** The service's refusals as pages: not an administrator (403), not found or another organization's (404). */
  async function handled(req: FastifyRequest, reply: FastifyReply, run: () => Promise<FastifyReply>): Promise<FastifyReply> {
    try {
      return await run();
    } catch (err) {
      const ctx = req.web;
      if (err instanceof ForbiddenError) {
        return sendPage(reply, messagePage(ctx, ctx.t('web.wh.forbidden_title'), translate(ctx.lang, err.messageKey, err.vars)), 403);
      }
      if (err instanceof NotFoundError) return sendNotFound(ctx, reply);
      throw err;
    }
  }

  const principal = (req: FastifyRequest) => principalOf(sessionOf(req));
  const body = (req: FastifyRequest) => (req.body ?? {}) as Record<string, unknown>;

  function formView(endpointId: string | null, input: WebhookFormInput, errors: WebhookFormView['errors'], csrfToken: string): WebhookFormView {
    return { endpointId, url: input.url, description: input.description, events: input.events, errors, csrfToken };
  }

  /** Runs a save; a form error or a refused URL shows the form again (422) with the values as posted. */
  async function saveOr422<T>(req: FastifyRequest, reply: FastifyReply, endpointId: string | null, checked: WebhookFormCheck<T>, save: (body: T) => Promise<FastifyReply>): Promise<FastifyReply> {
    const ctx = req.web;
    const csrfToken = sessionOf(req).csrfToken;
    if (!checked.ok) {
      const errors = checked.errors.map((e) => ({ field: e.field, message: ctx.t(e.key) }));
      return sendPage(reply, webhookFormPage(ctx, formView(endpointId, checked.input, errors, csrfToken)), 422);
    }
    try {
      return await save(checked.body);
    } catch (err) {
      if (!(err instanceof WebhookUrlRefusedError)) throw err;
      const errors = [{ field: 'url' as const, message: ctx.t('web.wh.error_url_refused', { reason: err.reason }) }];
      return sendPage(reply, webhookFormPage(ctx, formView(endpointId, checked.input, errors, csrfToken)), 422);
    }
  }

  /** Text that cannot be stored in a field of the form: the form again with the error on that field (src/web/refused-text.ts). */
  function refusedInForm(endpointIdOf: (req: FastifyRequest) => Promise<string | null>): RefusedTextAnswer {
    return async (req, reply, refusal) => {
      const field = refusal.field;
      if (field !== 'url' && field !== 'description' && field !== 'events') return null;
      return handled(req, reply, async () => {
        const endpointId = await endpointIdOf(req);
        const input = readWebhookForm(body(req));
        const shown = { url: withoutUnstorable(input.url), description: withoutUnstorable(input.description), events: input.events.map(withoutUnstorable) };
        const errors = [{ field: field as WebhookField, message: req.web.t('web.form.refused_text', { character: refusal.character }) }];
        return sendPage(reply, webhookFormPage(req.web, formView(endpointId, shown, errors, sessionOf(req).csrfToken)), 422);
      });
    };
  }

  async function endpointPage(req: FastifyRequest<EndpointParams & { Querystring: { page_token?: string; done?: string } }>, reply: FastifyReply, error: string | null = null, status = 200) {
    const id = req.params.endpointId;
    const endpoint = await getWebhookEndpoint(service, principal(req), id);
    const pageToken = typeof req.query.page_token === 'string' && req.query.page_token ? req.query.page_token : undefined;
    let page;
    try {
      page = await listWebhookDeliveries(service, principal(req), id, { pageToken, limit: DELIVERY_LOG_PAGE_SIZE });
    } catch (err) {
      // A stale or edited page token starts the log again at its first page.
      if (!(err instanceof InvalidDeliveryPageTokenError)) throw err;
      page = await listWebhookDeliveries(service, principal(req), id, { limit: DELIVERY_LOG_PAGE_SIZE });
    }
    const done = req.query.done;
    const notice = typeof done === 'string' && Object.hasOwn(NOTICES, done) ? req.web.t(NOTICES[done as keyof typeof NOTICES]) : null;
    return sendPage(
      reply,
      webhookEndpointPage(req.web, {
        endpoint,
        deliveries: page.deliveries,
        nextPageToken: page.next_page_token,
        isFirstPage: !pageToken,
        csrfToken: sessionOf(req).csrfToken,
        notice,
        error,
      }),
      status,
    );
  }

  async function showSecretOnce(req: FastifyRequest, reply: FastifyReply, view: WebhookSecretView): Promise<FastifyReply> {
    // Logged without the secret; the one-time page is the only place it ever appears.
    req.log.info({ event: `web.webhook_secret_${view.kind}`, endpointId: view.endpointId, userId: sessionOf(req).userId }, 'webhook signing secret issued');
    const ticket = await secrets.put(sessionOf(req).idHash, view);
    return reply.redirect(`/organization/webhooks/secret/${ticket}`, 303);
  }

  return async (app) => {
    // The list is a panel of the organization page.
    app.get('/organization/webhooks', { preHandler: requireSession }, async (_req, reply) => reply.redirect('/organization#webhooks', 303));

    app.get('/organization/webhooks/new', { preHandler: requireSession }, async (req, reply) =>
      handled(req, reply, async () => {
        requireWebhookAdmin(principal(req));
        return sendPage(reply, webhookFormPage(req.web, formView(null, { url: '', description: '', events: [] }, [], sessionOf(req).csrfToken)));
      }),
    );

    const newEndpoint = async (req: FastifyRequest) => {
      requireWebhookAdmin(principal(req));
      return null;
    };
    app.post('/organization/webhooks', { preHandler: guardPost, config: { refusedText: refusedInForm(newEndpoint) } }, async (req, reply) =>
      handled(req, reply, async () => {
        requireWebhookAdmin(principal(req));
        return saveOr422(req, reply, null, checkCreateWebhookForm(body(req)), async (request) => {
          const created = await createWebhookEndpoint(service, principal(req), request);
          return showSecretOnce(req, reply, { kind: 'created', endpointId: created.id, url: created.url, secret: created.secret });
        });
      }),
    );

    app.get<{ Params: { ticket: string } }>('/organization/webhooks/secret/:ticket', { preHandler: requireSession }, async (req, reply) => {
      const view = await secrets.take(sessionOf(req).idHash, req.params.ticket);
      // Seen already (a reload), expired, or not this session's: the endpoint exists, its secret is not shown again.
      if (!view) return reply.redirect('/organization#webhooks', 303);
      return sendPage(reply, webhookSecretPage(req.web, view));
    });

    app.get<EndpointParams & { Querystring: { page_token?: string; done?: string } }>('/organization/webhooks/:endpointId', { preHandler: requireSession }, async (req, reply) =>
      handled(req, reply, () => endpointPage(req, reply)),
    );

    app.get<EndpointParams>('/organization/webhooks/:endpointId/edit', { preHandler: requireSession }, async (req, reply) =>
      handled(req, reply, async () => {
        const e = await getWebhookEndpoint(service, principal(req), req.params.endpointId);
        const input = { url: e.url, description: e.description ?? '', events: e.events };
        return sendPage(reply, webhookFormPage(req.web, formView(e.id, input, [], sessionOf(req).csrfToken)));
      }),
    );

    const editedEndpoint = async (req: FastifyRequest) => (await getWebhookEndpoint(service, principal(req), (req.params as EndpointParams['Params']).endpointId)).id;
    app.post<EndpointParams>('/organization/webhooks/:endpointId/edit', { preHandler: guardPost, config: { refusedText: refusedInForm(editedEndpoint) } }, async (req, reply) =>
      handled(req, reply, async () => {
        // Checked first, so a member sees the 403 and another organization's id the 404 before any form error.
        const e = await getWebhookEndpoint(service, principal(req), req.params.endpointId);
        return saveOr422(req, reply, e.id, checkUpdateWebhookForm(body(req)), async (request) => {
          await updateWebhookEndpoint(service, principal(req), e.id, request);
          return reply.redirect(webhookHref(e.id, { done: 'updated' }), 303);
        });
      }),
    );

    app.post<EndpointParams>('/organization/webhooks/:endpointId/status', { preHandler: guardPost }, async (req, reply) =>
      handled(req, reply, async () => {
        const status = body(req).status;
        const e = await getWebhookEndpoint(service, principal(req), req.params.endpointId);
        if (status !== 'enabled' && status !== 'disabled') return reply.redirect(webhookHref(e.id), 303);
        await updateWebhookEndpoint(service, principal(req), e.id, { status });
        return reply.redirect(webhookHref(e.id, { done: status }), 303);
      }),
    );

    app.post<EndpointParams>('/organization/webhooks/:endpointId/rotate-secret', { preHandler: guardPost }, async (req, reply) =>
      handled(req, reply, async () => {
        const e = await getWebhookEndpoint(service, principal(req), req.params.endpointId);
        const { secret } = await rotateWebhookSecret(service, principal(req), e.id);
        return showSecretOnce(req, reply, { kind: 'rotated', endpointId: e.id, url: e.url, secret });
      }),
    );

    app.post<EndpointParams & { Querystring: { page_token?: string; done?: string } }>('/organization/webhooks/:endpointId/test', { preHandler: guardPost }, async (req, reply) =>
      handled(req, reply, async () => {
        try {
          await sendTestWebhookEvent(service, principal(req), req.params.endpointId);
        } catch (err) {
          if (!(err instanceof WebhookEndpointDisabledError)) throw err;
          req.query.done = undefined;
          return endpointPage(req, reply, translate(req.web.lang, err.messageKey), 409);
        }
        deps.onJobQueued();
        return reply.redirect(webhookHref(req.params.endpointId, { done: 'test' }, '#deliveries'), 303);
      }),
    );

    app.post<{ Params: { endpointId: string; deliveryId: string } }>('/organization/webhooks/:endpointId/deliveries/:deliveryId/retry', { preHandler: guardPost }, async (req, reply) =>
      handled(req, reply, async () => {
        await retryWebhookDelivery(service, principal(req), req.params.endpointId, req.params.deliveryId);
        deps.onJobQueued();
        return reply.redirect(webhookHref(req.params.endpointId, { done: 'retry' }, '#deliveries'), 303);
      }),
    );

    app.get<EndpointParams>('/organization/webhooks/:endpointId/delete', { preHandler: requireSession }, async (req, reply) =>
      handled(req, reply, async () => {
        const endpoint = await getWebhookEndpoint(service, principal(req), req.params.endpointId);
        return sendPage(reply, webhookDeletePage(req.web, { endpoint, csrfToken: sessionOf(req).csrfToken }));
      }),
    );

    app.post<EndpointParams>('/organization/webhooks/:endpointId/delete', { preHandler: guardPost }, async (req, reply) =>
      handled(req, reply, async () => {
        await deleteWebhookEndpoint(service, principal(req), req.params.endpointId);
        req.log.info({ event: 'web.webhook_deleted', endpointId: req.params.endpointId, userId: sessionOf(req).userId }, 'webhook endpoint deleted');
        return reply.redirect('/organization?webhook=deleted#webhooks', 303);
      }),
    );
  };
}
