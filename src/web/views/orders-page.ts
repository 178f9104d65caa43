/** The orders dashboard: per-state counts, the project filter, preview cards and page links. */
import { ALL_PROJECTS, ORDER_STATES, PERSONAL_CERTIFICATES, STATE_COUNTERS, type OrderPreviewT, type OrderStatsT } from '../../contract/schemas.js';
import { html, type SafeHtml } from '../html.js';
import type { WebContext } from '../web-context.js';
import { stateClass, timeElement } from './format.js';
import { page } from './layout.js';

export interface OrdersView {
  filter: string;
  /** Visible projects, sorted as the API sorts project_names. */
  projects: Array<{ id: string; name: string }>;
  stats: OrderStatsT;
  orders: OrderPreviewT[];
  nextPageToken: string | null;
  isFirstPage: boolean;
}

/** Link to the dashboard for a filter (and page). */
export function ordersHref(filter: string, pageToken?: string | null): string {
  const params = new URLSearchParams({ project: filter });
  if (pageToken) params.set('page_token', pageToken);
  return `/orders?${params.toString()}`;
}

function stats(ctx: WebContext, s: OrderStatsT): SafeHtml {
  const items = ORDER_STATES.map(
    (state) => html`<li class="stat ${stateClass(state)}" data-state="${state}"><span class="count">${s[STATE_COUNTERS[state]]}</span> <span class="label">${state}</span></li>`,
  );
  return html`<section aria-labelledby="stats-title"><h2 id="stats-title" class="visually-hidden">${ctx.t('web.orders.stats')}</h2>
    <ul class="stats">
      <li class="stat total" data-state="total"><span class="count">${s.total_orders}</span> <span class="label">${ctx.t('web.orders.total')}</span></li>
      ${items}
    </ul></section>`;
}

function filterForm(ctx: WebContext, view: OrdersView): SafeHtml {
  const option = (value: string, label: string) => html`<option value="${value}" ${value === view.filter ? html`selected` : ''}>${label}</option>`;
  return html`<form method="get" action="/orders" class="filter">
    <label for="project-filter">${ctx.t('web.orders.filter')}</label>
    <select id="project-filter" name="project">
      ${option(ALL_PROJECTS, ctx.t('web.orders.all_projects'))}
      ${option(PERSONAL_CERTIFICATES, ctx.t('web.orders.personal'))}
      ${view.projects.map((p) => option(p.id, p.name))}
    </select>
    <button type="submit">${ctx.t('web.orders.apply')}</button>
  </form>`;
}

/** pass / fail / none from an order's analysis lines. */
export function analysisOutcome(lines: OrderPreviewT['analysis_list']): 'pass' | 'fail' | 'none' {
  if (!lines || lines.length === 0) return 'none';
  return lines.every((l) => l.analysis_passed) ? 'pass' : 'fail';
}

function card(ctx: WebContext, o: OrderPreviewT): SafeHtml {
  const outcome = analysisOutcome(o.analysis_list);
  const outcomeLabel = { pass: ctx.t('web.orders.analysis_passed'), fail: ctx.t('web.orders.analysis_failed'), none: ctx.t('web.orders.no_analysis') }[outcome];
  const preview = o.asset_preview_url
    ? html`<img src="${o.asset_preview_url}" alt="${ctx.t('web.orders.preview_alt', { title: o.order_title })}">`
    : html`<div class="no-preview">${ctx.t('web.orders.no_preview')}</div>`;
  const tags = (o.tags ?? []).map((tag) => html`<li class="tag">${tag}</li>`);
  return html`<li class="card" data-order-id="${o.order_id}" data-state="${o.order_state}">
    <div class="card-preview">${preview}</div>
    <div class="card-body">
      <h3><a href="/orders/${encodeURIComponent(o.order_id)}">${o.order_title}</a></h3>
      <p class="card-meta">${o.project_name ?? ctx.t('web.orders.personal_badge')} · ${timeElement(ctx.lang, o.creation_time)}</p>
      <p class="badges"><span class="badge ${stateClass(o.order_state)}">${o.order_state}</span>
        <span class="badge analysis-${outcome}" data-analysis="${outcome}">${outcome === 'pass' ? '✓ ' : outcome === 'fail' ? '✗ ' : ''}${outcomeLabel}</span></p>
      ${tags.length ? html`<ul class="tags" aria-label="${ctx.t('web.order.tags')}">${tags}</ul>` : ''}
    </div>
  </li>`;
}

export function ordersPage(ctx: WebContext, view: OrdersView): SafeHtml {
  const list = view.orders.length
    ? html`<ul class="cards">${view.orders.map((o) => card(ctx, o))}</ul>`
    : html`<p class="empty">${ctx.t('web.orders.empty')}</p>`;
  const paging =
    view.nextPageToken || !view.isFirstPage
      ? html`<nav class="paging" aria-label="${ctx.t('web.orders.paging')}">
          ${view.isFirstPage ? '' : html`<a href="${ordersHref(view.filter)}" rel="first">${ctx.t('web.orders.first')}</a>`}
          ${view.nextPageToken ? html`<a href="${ordersHref(view.filter, view.nextPageToken)}" rel="next">${ctx.t('web.orders.next')} →</a>` : ''}
        </nav>`
      : '';
  return page(ctx, {
    title: ctx.t('web.orders.title'),
    active: 'orders',
    body: html`<div class="page-heading"><h1>${ctx.t('web.orders.title')}</h1>
      <a class="button primary" href="/orders/new" data-new-order>${ctx.t('web.orders.new_order')}</a></div>
      ${filterForm(ctx, view)}
      ${stats(ctx, view.stats)}
      ${list}
      ${paging}`,
  });
}
