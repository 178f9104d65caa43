/** The review queue `/review` (docs/review.md): filters with counts, then the orders, oldest first. */
import type { ReviewQueue } from '../../domain/review/index.js';
import { html, type SafeHtml } from '../html.js';
import type { WebContext } from '../web-context.js';
import { timeElement } from './format.js';
import { page } from './layout.js';

export interface QueueFilterView {
  organizationId: string | null;
  cameBack: boolean;
}

export function reviewQueueHref(filter: QueueFilterView): string {
  const params = new URLSearchParams();
  if (filter.organizationId) params.set('organization', filter.organizationId);
  if (filter.cameBack) params.set('came_back', '1');
  const query = params.toString();
  return query ? `/review?${query}` : '/review';
}

function filters(ctx: WebContext, queue: ReviewQueue, current: QueueFilterView): SafeHtml {
  const t = ctx.t;
  const link = (label: string, count: number, filter: QueueFilterView, active: boolean) =>
    html`<li><a href="${reviewQueueHref(filter)}" ${active ? html`aria-current="page"` : ''} data-count="${count}">${label} (${count})</a></li>`;
  return html`<nav class="review-filters" aria-label="${t('web.review.filters')}"><ul>
    ${link(t('web.review.filter_all'), queue.counts.total, { organizationId: null, cameBack: false }, !current.organizationId && !current.cameBack)}
    ${link(t('web.review.filter_came_back'), queue.counts.cameBack, { organizationId: null, cameBack: true }, !current.organizationId && current.cameBack)}
    ${queue.counts.organizations.map((o) => link(o.name, o.count, { organizationId: o.id, cameBack: false }, current.organizationId === o.id))}
  </ul></nav>`;
}

export function reviewQueuePage(ctx: WebContext, queue: ReviewQueue, current: QueueFilterView): SafeHtml {
  const t = ctx.t;
  const rows = queue.items.map(
    (item) => html`<tr data-order-id="${item.order_id}">
      <td><a href="/review/orders/${encodeURIComponent(item.order_id)}">${item.order_title || item.asset_name}</a>
        <div class="muted">${item.asset_name}</div></td>
      <td>${item.organization_name}</td>
      <td>${timeElement(ctx.lang, item.entered_at)}${item.came_back ? html` <span class="badge state-action-required" data-came-back>${t('web.review.came_back')}</span>` : ''}</td>
      <td>${item.claimed_by_name ? html`<span data-claimed-by>${t('web.review.being_reviewed_by', { name: item.claimed_by_name })}</span>` : t('web.review.available')}</td>
    </tr>`,
  );
  const recent = queue.recentCertificates.length
    ? html`<section class="panel" aria-labelledby="recent-certificates-title" data-recent-certificates>
        <h2 id="recent-certificates-title">${t('web.review.recent_title')}</h2>
        <p class="help">${t('web.review.recent_intro')}</p>
        <table class="data"><thead><tr>
          <th scope="col">${t('web.review.col_order')}</th><th scope="col">${t('web.review.col_organization')}</th>
          <th scope="col">${t('web.verify.issued')}</th><th scope="col">${t('web.review.col_status')}</th>
        </tr></thead><tbody>${queue.recentCertificates.map(
          (c) => html`<tr data-certificate-id="${c.certificate_id}">
            <td><a href="/review/orders/${encodeURIComponent(c.order_id)}">${c.order_title || c.asset_name}</a><div class="muted">${c.asset_name}</div></td>
            <td>${c.organization_name}</td>
            <td>${timeElement(ctx.lang, c.issued_at)}</td>
            <td>${c.revoked_at ? html`<span class="badge state-failed">Revoked</span>` : html`<span class="badge state-human-certified">Human Certified</span>`}</td>
          </tr>`,
        )}</tbody></table>
      </section>`
    : '';
  return page(ctx, {
    title: t('web.review.queue_title'),
    active: 'review',
    body: html`<h1>${t('web.review.queue_title')}</h1>
      <p class="help">${t('web.review.queue_intro')}</p>
      ${filters(ctx, queue, current)}
      ${queue.items.length === 0
        ? html`<p data-queue-empty>${t('web.review.empty')}</p>`
        : html`<table class="data review-queue"><thead><tr>
            <th scope="col">${t('web.review.col_order')}</th><th scope="col">${t('web.review.col_organization')}</th>
            <th scope="col">${t('web.review.col_entered')}</th><th scope="col">${t('web.review.col_status')}</th>
          </tr></thead><tbody>${rows}</tbody></table>`}
      ${recent}`,
  });
}
