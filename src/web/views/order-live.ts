/**
 * The order page's live parts (order-write.js): the status line that polls the order's progress while
 * its analysis runs, and the customer's response form for `Action Required`.
 */
import type { OrderT } from '../../contract/schemas.js';
import { html, type SafeHtml } from '../html.js';
import { CSRF_FIELD } from '../session/csrf.js';
import type { WebContext } from '../web-context.js';
import { scriptMessages } from './upload-page.js';

/** Whether the signed-in user may answer this order (respondToOrder's rule: not a project viewer). */
export function canRespond(ctx: WebContext, o: OrderT): boolean {
  if (!ctx.session) return false;
  return !o.project || ctx.session.isAdmin || o.project.userRole === 'admin' || o.project.userRole === 'editor';
}

/**
 * The polled status line: order-write.js fetches `data-progress-url` while the order is `In Progress`
 * and updates the state badges (`data-live-state`) and the analysis list (`data-live-analysis`).
 */
export function liveStatus(ctx: WebContext, o: OrderT, responded: boolean): SafeHtml {
  const t = ctx.t;
  return html`<p class="live-status" role="status" data-live-order data-progress-url="/orders/${encodeURIComponent(o.order_id)}/progress"
    data-state="${o.order_state}" data-msg-running="${t('web.live.running')}" data-msg-waiting="${t('web.live.waiting')}"
    data-msg-done="${t('web.live.done')}" data-msg-stopped="${t('web.live.stopped')}" data-msg-preview-alt="${t('web.orders.preview_alt', { title: o.order_title })}">${responded && o.order_state === 'In Progress' ? t('web.respond.sent') : ''}</p>`;
}

/** The analysis lines' container attributes: labels the script needs to redraw the list. */
export function liveAnalysisLabels(ctx: WebContext): SafeHtml {
  const t = ctx.t;
  return html`data-live-analysis data-label-check="${t('web.order.check')}" data-label-result="${t('web.order.result')}"
    data-label-passed="${t('web.order.passed')}" data-label-failed="${t('web.order.failed')}" data-label-none="${t('web.orders.no_analysis')}"`;
}

/**
 * The response form: shown on `Action Required`; rendered hidden on `In Progress` so the page can show
 * it when the analysis moves the order there. Works without JavaScript (message only, 303 back).
 */
export function responseForm(ctx: WebContext, o: OrderT): SafeHtml {
  if (!ctx.session || !canRespond(ctx, o) || (o.order_state !== 'Action Required' && o.order_state !== 'In Progress')) return html``;
  const t = ctx.t;
  const action = `/orders/${encodeURIComponent(o.order_id)}/responses`;
  return html`<section class="panel respond" id="respond" aria-labelledby="respond-title" data-live-respond ${o.order_state === 'Action Required' ? '' : html`hidden`}>
    <h2 id="respond-title">${t('web.respond.title')}</h2>
    <p class="help">${t('web.respond.intro')}</p>
    <form method="post" action="${action}" class="stacked" data-response-form data-response-url="${action}"
      data-announce-url="/orders/uploads" data-csrf="${ctx.session.csrfToken}"${scriptMessages(ctx)}>
      <input type="hidden" name="${CSRF_FIELD}" value="${ctx.session.csrfToken}">
      <label for="response-message">${t('web.respond.message')}</label>
      <textarea id="response-message" name="message" rows="4" maxlength="10000" required></textarea>
      <label for="response-files">${t('web.respond.evidence')}</label>
      <input type="file" id="response-files" multiple aria-describedby="response-files-help">
      <p class="help" id="response-files-help">${t('web.respond.evidence_help')}</p>
      <ul class="upload-list" data-upload-list aria-live="polite"></ul>
      <p class="message error" data-form-error role="alert" hidden></p>
      <button type="submit" class="primary">${t('web.respond.submit')}</button>
    </form>
  </section>`;
}
