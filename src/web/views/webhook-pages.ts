/**
 * Webhook endpoints on the organization page (docs/webhooks.md, "On the organization page"): the panel
 * listing them, the add and edit form, an endpoint's page with its actions and delivery log, the
 * one-time display of a signing secret, and the delete confirmation. Administrators only (the routes
 * check through the domain service). Event names, statuses and URLs are data: shown as they are, escaped.
 */
import { WEBHOOK_EVENT_TYPES, type WebhookDeliveryT, type WebhookEndpointT, type WebhookEventType } from '../../contract/webhook-schemas.js';
import { translate, type MessageKey } from '../../i18n/index.js';
import { html, type SafeHtml } from '../html.js';
import { CSRF_FIELD } from '../session/csrf.js';
import type { WebContext } from '../web-context.js';
import { timeElement } from './format.js';
import { copyButton, page } from './layout.js';

type WebKey = MessageKey & `web.${string}`;

export const webhookHref = (id: string, query: Record<string, string> = {}, hash = ''): string => {
  const search = new URLSearchParams(query).toString();
  return `/organization/webhooks/${encodeURIComponent(id)}${search ? `?${search}` : ''}${hash}`;
};

const EVENT_LABELS: Record<WebhookEventType, WebKey> = {
  'order.created': 'web.wh.ev.order.created',
  'order.state_changed': 'web.wh.ev.order.state_changed',
  'certificate.issued': 'web.wh.ev.certificate.issued',
  'certificate.revoked': 'web.wh.ev.certificate.revoked',
};

function hidden(csrfToken: string): SafeHtml {
  return html`<input type="hidden" name="${CSRF_FIELD}" value="${csrfToken}">`;
}

function statusBadge(ctx: WebContext, endpoint: Pick<WebhookEndpointT, 'status'>): SafeHtml {
  return html`<span class="badge wh-${endpoint.status}" data-status="${endpoint.status}">${ctx.t(endpoint.status === 'enabled' ? 'web.wh.enabled' : 'web.wh.disabled')}</span>`;
}

function statusWithReason(ctx: WebContext, endpoint: WebhookEndpointT): SafeHtml {
  return html`${statusBadge(ctx, endpoint)}${endpoint.disabled_reason
    ? html`<p class="help wh-reason" data-disabled-reason>${ctx.t('web.wh.disabled_because', { reason: endpoint.disabled_reason })}</p>`
    : ''}`;
}

function eventList(events: readonly string[]): SafeHtml {
  return html`<ul class="wh-events">${events.map((e) => html`<li><code>${e}</code></li>`)}</ul>`;
}

/** The panel of the organization page (administrators only): every endpoint, and the way to add one. */
export function webhooksPanel(ctx: WebContext, endpoints: readonly WebhookEndpointT[]): SafeHtml {
  const t = ctx.t;
  const table = endpoints.length
    ? html`<div class="table-scroll"><table class="data webhooks">
        <thead><tr><th scope="col">${t('web.wh.url')}</th><th scope="col">${t('web.wh.events')}</th><th scope="col">${t('web.wh.status')}</th>
          <th scope="col">${t('web.wh.created')}</th><th scope="col"><span class="visually-hidden">${t('web.wh.actions')}</span></th></tr></thead>
        <tbody>${endpoints.map(
          (e) => html`<tr data-endpoint-id="${e.id}">
            <td class="wh-url"><a href="${webhookHref(e.id)}"><code>${e.url}</code></a>${e.description ? html`<p class="help">${e.description}</p>` : ''}</td>
            <td>${eventList(e.events)}</td>
            <td>${statusWithReason(ctx, e)}</td>
            <td>${timeElement(ctx.lang, e.created_at)}</td>
            <td><a class="button" href="${webhookHref(e.id)}" aria-label="${t('web.wh.manage_named', { url: e.url })}">${t('web.wh.manage')}</a></td>
          </tr>`,
        )}</tbody></table></div>`
    : html`<p class="empty">${t('web.wh.empty')}</p>`;
  return html`<section class="panel" aria-labelledby="webhooks-title" id="webhooks">
    <div class="page-heading"><h2 id="webhooks-title">${t('web.wh.title')}</h2>
      <a class="button primary" href="/organization/webhooks/new">${t('web.wh.add')}</a></div>
    <p>${t('web.wh.intro')}</p>
    ${table}
  </section>`;
}

export interface WebhookFormView {
  /** null: a new endpoint. */
  endpointId: string | null;
  url: string;
  description: string;
  events: string[];
  errors: Array<{ field: 'url' | 'events' | 'description'; message: string }>;
  csrfToken: string;
}

/** Add (endpointId null) or edit one endpoint; errors are listed on top and tied to their fields. */
export function webhookFormPage(ctx: WebContext, view: WebhookFormView): SafeHtml {
  const t = ctx.t;
  const title = view.endpointId ? t('web.wh.edit_title') : t('web.wh.new_title');
  const errorOf = (field: WebhookFormView['errors'][number]['field']) => view.errors.filter((e) => e.field === field);
  const invalid = (field: WebhookFormView['errors'][number]['field']) => (errorOf(field).length ? html`aria-invalid="true"` : '');
  const fieldErrors = (field: WebhookFormView['errors'][number]['field']) =>
    errorOf(field).map((e) => html`<p class="field-error" id="wh-${field}-error">${e.message}</p>`);
  const describedBy = (field: 'url' | 'description') => `wh-${field}-help${errorOf(field).length ? ` wh-${field}-error` : ''}`;
  const action = view.endpointId ? `${webhookHref(view.endpointId).split('?')[0]}/edit` : '/organization/webhooks';
  const back = view.endpointId ? webhookHref(view.endpointId) : '/organization#webhooks';
  return page(ctx, {
    title,
    active: 'organization',
    languageBase: view.endpointId ? `${webhookHref(view.endpointId)}/edit` : '/organization/webhooks/new',
    body: html`<p class="breadcrumb"><a href="/organization#webhooks">← ${t('web.wh.back')}</a></p>
      <section class="panel">
      <h1>${title}</h1>
      ${view.errors.length
        ? html`<div class="message error" role="alert" id="webhook-errors"><ul>${view.errors.map((e) => html`<li>${e.message}</li>`)}</ul></div>`
        : ''}
      <form method="post" action="${action}" class="stacked webhook-form" novalidate>
        ${hidden(view.csrfToken)}
        <label for="wh-url">${t('web.wh.url')}</label>
        <input id="wh-url" name="url" type="url" inputmode="url" maxlength="2048" required value="${view.url}" placeholder="https://" aria-describedby="${describedBy('url')}" ${invalid('url')}>
        <p class="help" id="wh-url-help">${t('web.wh.url_help')}</p>
        ${fieldErrors('url')}
        <label for="wh-description">${t('web.wh.description')}</label>
        <textarea id="wh-description" name="description" rows="2" maxlength="500" aria-describedby="${describedBy('description')}" ${invalid('description')}>${view.description}</textarea>
        <p class="help" id="wh-description-help">${t('web.wh.description_help')}</p>
        ${fieldErrors('description')}
        <fieldset ${errorOf('events').length ? html`aria-describedby="wh-events-error"` : ''}>
          <legend>${t('web.wh.events')}</legend>
          ${WEBHOOK_EVENT_TYPES.map(
            (e) => html`<label class="check"><input type="checkbox" name="events" value="${e}" ${view.events.includes(e) ? html`checked` : ''}> <code>${e}</code> <span class="muted">${t(EVENT_LABELS[e])}</span></label>`,
          )}
          ${fieldErrors('events')}
        </fieldset>
        <div class="form-buttons">
          <button type="submit" class="primary">${view.endpointId ? t('web.wh.save') : t('web.wh.add')}</button>
          <a class="button" href="${back}">${t('web.wh.cancel')}</a>
        </div>
      </form>
    </section>`,
  });
}

export interface WebhookEndpointPageView {
  endpoint: WebhookEndpointT;
  deliveries: WebhookDeliveryT[];
  nextPageToken: string | null;
  isFirstPage: boolean;
  csrfToken: string;
  notice: string | null;
  error: string | null;
}

function deliveryStatus(delivery: WebhookDeliveryT): SafeHtml {
  return html`<span class="badge wh-${delivery.status}">${delivery.status}</span>`;
}

function deliveryTable(ctx: WebContext, view: WebhookEndpointPageView): SafeHtml {
  const t = ctx.t;
  if (!view.deliveries.length) return html`<p class="empty">${t('web.wh.deliveries_empty')}</p>`;
  const id = view.endpoint.id;
  return html`<div class="table-scroll"><table class="data deliveries">
    <thead><tr><th scope="col">${t('web.wh.event_type')}</th><th scope="col">${t('web.wh.event_id')}</th><th scope="col">${t('web.wh.status')}</th>
      <th scope="col">${t('web.wh.response')}</th><th scope="col">${t('web.wh.latency')}</th><th scope="col">${t('web.wh.attempts')}</th>
      <th scope="col">${t('web.wh.last_attempt')}</th><th scope="col">${t('web.wh.next_attempt')}</th>
      <th scope="col"><span class="visually-hidden">${t('web.wh.actions')}</span></th></tr></thead>
    <tbody>${view.deliveries.map(
      (d) => html`<tr data-delivery-id="${d.id}" data-delivery-status="${d.status}">
        <td><code>${d.event_type}</code></td>
        <td><code class="wh-event-id">${d.event_id}</code></td>
        <td>${deliveryStatus(d)}</td>
        <td data-response-status="${d.response_status ?? ''}">${d.response_status === null ? html`<span class="muted">${d.attempts ? t('web.wh.no_response') : '—'}</span>` : html`<code>${d.response_status}</code>`}</td>
        <td class="numeric">${d.latency_ms === null ? '—' : t('web.wh.latency_ms', { ms: d.latency_ms })}</td>
        <td class="numeric">${d.attempts}</td>
        <td>${timeElement(ctx.lang, d.last_attempt_at, '—')}</td>
        <td>${timeElement(ctx.lang, d.next_attempt_at, '—')}</td>
        <td><form method="post" action="${webhookHref(id)}/deliveries/${encodeURIComponent(d.id)}/retry" class="inline">
          ${hidden(view.csrfToken)}
          <button type="submit" aria-label="${t('web.wh.send_again_named', { event_id: d.event_id })}">${t('web.wh.send_again')}</button>
        </form></td>
      </tr>`,
    )}</tbody></table></div>`;
}

/** One endpoint: its fields, its actions (each a small form with the CSRF token) and its delivery log. */
export function webhookEndpointPage(ctx: WebContext, view: WebhookEndpointPageView): SafeHtml {
  const t = ctx.t;
  const e = view.endpoint;
  const base = webhookHref(e.id);
  const enabled = e.status === 'enabled';
  const paging =
    view.nextPageToken || !view.isFirstPage
      ? html`<nav class="paging" aria-label="${t('web.wh.deliveries')}">
          ${view.isFirstPage ? '' : html`<a href="${base}#deliveries" rel="first">${t('web.orders.first')}</a>`}
          ${view.nextPageToken ? html`<a href="${webhookHref(e.id, { page_token: view.nextPageToken }, '#deliveries')}" rel="next">${t('web.orders.next')} →</a>` : ''}
        </nav>`
      : '';
  return page(ctx, {
    title: t('web.wh.endpoint_title'),
    active: 'organization',
    languageBase: base,
    body: html`<p class="breadcrumb"><a href="/organization#webhooks">← ${t('web.wh.back')}</a></p>
      <h1>${t('web.wh.endpoint_title')} ${statusBadge(ctx, e)}</h1>
      ${view.notice ? html`<p class="message info" role="status">${view.notice}</p>` : ''}
      ${view.error ? html`<p class="message error" role="alert">${view.error}</p>` : ''}
      <section class="panel" aria-labelledby="endpoint-title">
        <h2 id="endpoint-title" class="visually-hidden">${t('web.wh.endpoint_title')}</h2>
        <dl class="fields">
          <div class="field"><dt>${t('web.wh.url')}</dt><dd><code class="wh-url" id="endpoint-url">${e.url}</code></dd></div>
          <div class="field"><dt>${t('web.wh.description')}</dt><dd id="endpoint-description">${e.description ?? html`<span class="muted">—</span>`}</dd></div>
          <div class="field"><dt>${t('web.wh.events')}</dt><dd>${eventList(e.events)}</dd></div>
          <div class="field"><dt>${t('web.wh.status')}</dt><dd>${statusWithReason(ctx, e)}</dd></div>
          <div class="field"><dt>${t('web.wh.created')}</dt><dd>${timeElement(ctx.lang, e.created_at)}</dd></div>
        </dl>
        <div class="wh-actions">
          <a class="button" href="${base}/edit">${t('web.wh.edit')}</a>
          <form method="post" action="${base}/status" class="inline">
            ${hidden(view.csrfToken)}
            <input type="hidden" name="status" value="${enabled ? 'disabled' : 'enabled'}">
            <button type="submit" data-action="${enabled ? 'disable' : 'enable'}">${enabled ? t('web.wh.disable') : t('web.wh.enable')}</button>
          </form>
          <form method="post" action="${base}/rotate-secret" class="inline">
            ${hidden(view.csrfToken)}
            <button type="submit" data-action="rotate" aria-describedby="rotate-help">${t('web.wh.rotate')}</button>
          </form>
          <a class="button danger" href="${base}/delete">${t('web.wh.delete')}</a>
        </div>
        <p class="help" id="rotate-help">${t('web.wh.rotate_help')}</p>
      </section>
      <section class="panel" aria-labelledby="deliveries-title" id="deliveries">
        <div class="page-heading"><h2 id="deliveries-title">${t('web.wh.deliveries')}</h2>
          <div class="wh-actions">
            <a class="button" href="${base}#deliveries">${t('web.wh.reload')}</a>
            <form method="post" action="${base}/test" class="inline">
              ${hidden(view.csrfToken)}
              <button type="submit" class="primary" data-action="test" aria-describedby="test-help" ${enabled ? '' : html`disabled`}>${t('web.wh.send_test')}</button>
            </form>
          </div>
        </div>
        <p class="help" id="test-help">${enabled ? t('web.wh.send_test_help') : translate(ctx.lang, 'errors.webhook_endpoint_disabled')}</p>
        ${deliveryTable(ctx, view)}
        ${paging}
      </section>`,
  });
}

export interface WebhookSecretView {
  kind: 'created' | 'rotated';
  endpointId: string;
  url: string;
  secret: string;
}

/** The signing secret, shown once (post/redirect/get through OneTimeSecrets, like a credential's). */
export function webhookSecretPage(ctx: WebContext, view: WebhookSecretView): SafeHtml {
  const t = ctx.t;
  const title = view.kind === 'created' ? t('web.wh.created_title') : t('web.wh.rotated_title');
  return page(ctx, {
    title,
    active: 'organization',
    // Switching language must not render the secret twice: the links go to the endpoint's page.
    languageBase: webhookHref(view.endpointId),
    body: html`<h1>${title}</h1>
      <p class="message warning" role="alert">${t('web.wh.secret_once')}</p>
      ${view.kind === 'rotated' ? html`<p class="message info" data-rotation-note>${t('web.wh.secret_overlap')}</p>` : ''}
      <section class="panel" aria-labelledby="secret-title">
        <h2 id="secret-title" class="visually-hidden">${t('web.wh.secret')}</h2>
        <dl class="fields">
          <div class="field"><dt>${t('web.wh.url')}</dt><dd><code class="wh-url">${view.url}</code></dd></div>
          <div class="field"><dt>${t('web.wh.secret')}</dt>
            <dd class="copy-row"><code id="webhook-secret" class="secret-value">${view.secret}</code> ${copyButton(ctx, 'webhook-secret', t('web.wh.secret'))}</dd></div>
        </dl>
      </section>
      <p><a class="button primary" href="${webhookHref(view.endpointId)}">${t('web.wh.continue')} →</a></p>`,
  });
}

export function webhookDeletePage(ctx: WebContext, view: { endpoint: WebhookEndpointT; csrfToken: string }): SafeHtml {
  const t = ctx.t;
  const base = webhookHref(view.endpoint.id);
  return page(ctx, {
    title: t('web.wh.delete_title'),
    active: 'organization',
    body: html`<section class="panel narrow">
      <h1>${t('web.wh.delete_title')}</h1>
      <p><code class="wh-url">${view.endpoint.url}</code></p>
      <p>${t('web.wh.delete_body')}</p>
      <form method="post" action="${base}/delete" class="actions">
        ${hidden(view.csrfToken)}
        <button type="submit" class="danger">${t('web.wh.delete')}</button>
        <a class="button" href="${base}">${t('web.wh.cancel')}</a>
      </form>
    </section>`,
  });
}
