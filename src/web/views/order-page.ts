/** One order: every field of the API's Order, analysis, failed items, layers, review and the overlay. */
import type { OrderT } from '../../contract/schemas.js';
import { html, type HtmlValue, type SafeHtml } from '../html.js';
import type { WebContext } from '../web-context.js';
import { annotationDetails, annotationLabel, annotationOverlay } from './annotation-overlay.js';
import { stateClass, timeElement } from './format.js';
import { page } from './layout.js';
import type { OrderHistoryEventT } from '../../contract/history-schemas.js';
import { orderHistoryList } from './order-history.js';
import { liveAnalysisLabels, liveStatus, responseForm } from './order-live.js';

function remediationLabel(ctx: WebContext, value: number): string {
  if (value >= 1) return ctx.t('web.order.remediation_recommended');
  if (value >= 0.5) return ctx.t('web.order.remediation_not_recommended');
  return ctx.t('web.order.remediation_unset');
}

/** `asset_last_modified_timestamp` is Unix seconds as a string: shown as given and as a date. */
function unixSeconds(ctx: WebContext, value: string): SafeHtml {
  const n = Number(value);
  return /^\d+$/.test(value) && Number.isSafeInteger(n) ? html`${timeElement(ctx.lang, new Date(n * 1000))} <span class="muted">(${value})</span>` : html`${value}`;
}

function row(label: string, value: HtmlValue, field: string): SafeHtml {
  return html`<div class="field" data-field="${field}"><dt>${label}</dt><dd>${value}</dd></div>`;
}

export function details(ctx: WebContext, o: OrderT): SafeHtml {
  const t = ctx.t;
  const project = o.project
    ? html`${o.project.name} <span class="muted">(${t('web.order.your_role', { role: o.project.userRole })})</span>`
    : t('web.orders.personal');
  const tags = o.tags?.length ? html`<ul class="tags">${o.tags.map((tag) => html`<li class="tag">${tag}</li>`)}</ul>` : t('web.none');
  return html`<dl class="fields">
    ${row(t('web.order.id'), html`<code>${o.order_id}</code>`, 'order_id')}
    ${row(t('web.order.state'), html`<span class="badge ${stateClass(o.order_state)}" data-live-state>${o.order_state}</span>`, 'order_state')}
    ${row(t('web.order.creator'), html`${o.username} &lt;${o.email}&gt;`, 'username')}
    ${row(t('web.order.ordered_by'), o.ordered_by ?? '—', 'ordered_by')}
    ${row(t('web.order.created'), timeElement(ctx.lang, o.creation_time), 'creation_time')}
    ${row(t('web.order.project'), project, 'project')}
    ${row(t('web.order.asset'), o.asset_name, 'asset_name')}
    ${row(t('web.order.asset_id'), html`<code>${o.asset_id}</code>`, 'asset_id')}
    ${row(t('web.order.asset_modified'), unixSeconds(ctx, o.asset_last_modified_timestamp), 'asset_last_modified_timestamp')}
    ${row(t('web.order.confidence'), o.confidence ?? 0, 'confidence')}
    ${row(t('web.order.remediation'), html`${remediationLabel(ctx, o.remediation ?? 0)} <span class="muted">(${o.remediation ?? 0})</span>`, 'remediation')}
    ${row(t('web.order.tags'), tags, 'tags')}
  </dl>`;
}

export function analysis(ctx: WebContext, o: OrderT): SafeHtml {
  const lines = o.analysis_list ?? [];
  if (!lines.length) return html`<p>${ctx.t('web.orders.no_analysis')}</p>`;
  return html`<table class="data"><thead><tr><th scope="col">${ctx.t('web.order.check')}</th><th scope="col">${ctx.t('web.order.result')}</th></tr></thead>
    <tbody>${lines.map(
      (l) => html`<tr data-analysis-type="${l.analysis_type}"><td>${l.analysis_type}</td>
        <td><span class="badge analysis-${l.analysis_passed ? 'pass' : 'fail'}">${l.analysis_passed ? `✓ ${ctx.t('web.order.passed')}` : `✗ ${ctx.t('web.order.failed')}`}</span></td></tr>`,
    )}</tbody></table>`;
}

/**
 * Failed items sit in the narrow column of the order page, where a five-column table could only fit by
 * breaking its header words mid-word or by hiding columns behind a scroll. Each item is a small table of
 * its own instead, with the field names as row headers: every field stays visible at any width.
 */
export function failedItems(ctx: WebContext, o: OrderT): SafeHtml {
  const items = o.analysis_failed_items ?? [];
  if (!items.length) return html`<p>${ctx.t('web.none')}</p>`;
  const t = ctx.t;
  const row = (label: string, value: SafeHtml | string) => html`<tr><th scope="row">${label}</th><td>${value}</td></tr>`;
  return html`<ol class="failed-items">${items.map(
    (i) => html`<li><table class="data failed-item"><tbody>
      ${row(t('web.order.item_type'), i.type)}${row(t('web.order.item_name'), i.name)}
      ${row(t('web.order.item_path'), html`<code>${i.storage_path}</code>`)}${row(t('web.order.ai_likelihood'), String(i.ai_likelihood ?? 0))}
      ${row(t('web.order.annotation_ids'), [...new Set([...(i.annotation_ids ?? []), ...(i.annotation_id ? [i.annotation_id] : [])])].join(', ') || '—')}
    </tbody></table></li>`,
  )}</ol>`;
}

export function layers(ctx: WebContext, o: OrderT): SafeHtml {
  const list = o.layers_info ?? [];
  if (!list.length) return html`<p>${ctx.t('web.none')}</p>`;
  return html`<ul class="layers">${list.map(
    (l) => html`<li><a href="${l.layer_url}" download data-layer="${l.layer_name}">${ctx.t('web.order.download', { name: l.layer_name })}</a></li>`,
  )}</ul>`;
}

function review(ctx: WebContext, o: OrderT): SafeHtml {
  if (!o.reviewed_by && !o.review_timestamp) return html`<p data-review="none">${ctx.t('web.order.not_reviewed')}</p>`;
  return html`<dl class="fields" data-review="done">
    ${row(ctx.t('web.order.reviewed_by'), o.reviewed_by ?? '—', 'reviewed_by')}
    ${row(ctx.t('web.order.reviewed_at'), timeElement(ctx.lang, o.review_timestamp, '—'), 'review_timestamp')}
  </dl>`;
}

export function annotationList(ctx: WebContext, o: OrderT): SafeHtml {
  const list = o.annotations ?? [];
  if (!list.length) return html`<p>${ctx.t('web.none')}</p>`;
  return html`<ol class="annotation-list">${list.map(
    (a, i) => html`<li id="annotation-${i}" class="${a.properties?.needs_remediation ? 'needs-remediation' : ''}" data-annotation-index="${i}">
      <strong>${annotationLabel(ctx, a, i)}</strong> <span class="muted">${a.target?.selector.type ?? ''}</span>
      ${annotationDetails(ctx, a)}</li>`,
  )}</ol>`;
}

/**
 * `responded`: the page follows a response sent without JavaScript (it says so). `history`: the order's
 * events, given only to organization administrators (the section is absent otherwise). `evidenceRequest`:
 * the reviewer's note of an `Ask for evidence`, shown to the customer while the order waits for them.
 */
export function orderPage(
  ctx: WebContext,
  o: OrderT,
  options: { responded?: boolean; history?: readonly OrderHistoryEventT[]; evidenceRequest?: string | null; contentCredentials?: 'pending' | 'ready' | 'unsupported' | null } = {},
): SafeHtml {
  const t = ctx.t;
  const annotations = o.annotations ?? [];
  const preview = o.asset_preview_url
    ? annotationOverlay(ctx, o.asset_preview_url, t('web.orders.preview_alt', { title: o.order_title }), annotations)
    : html`<div class="no-preview large">${t('web.orders.no_preview')}</div>`;
  const section = (id: string, title: string, body: SafeHtml) =>
    html`<section class="panel" aria-labelledby="${id}"><h2 id="${id}">${title}</h2>${body}</section>`;
  return page(ctx, {
    title: o.order_title,
    active: 'orders',
    scripts: ['order-write.js'],
    body: html`<p><a href="/orders">← ${t('web.order.back')}</a></p>
      <h1>${o.order_title} <span class="badge ${stateClass(o.order_state)}" data-live-state>${o.order_state}</span></h1>
      ${liveStatus(ctx, o, options.responded ?? false)}
      ${options.evidenceRequest ? html`<section class="panel" data-evidence-request><p><strong>${t('web.order.evidence_requested')}</strong></p><blockquote class="note">${options.evidenceRequest}</blockquote></section>` : ''}
      ${responseForm(ctx, o)}
      ${options.contentCredentials === 'ready' ? html`<p data-content-credentials><a class="button" href="/orders/${encodeURIComponent(o.order_id)}/certificate/file" download>${t('web.order.download_content_credentials')}</a></p>` : ''}
      <div class="order-layout">
        <div class="order-visual">
          ${section('preview-title', t('web.order.preview'), preview)}
          ${section('annotations-title', t('web.order.annotations'), annotationList(ctx, o))}
        </div>
        <div class="order-info">
          ${section('details-title', t('web.order.details'), details(ctx, o))}
          ${section('analysis-title', t('web.order.analysis'), html`<div ${liveAnalysisLabels(ctx)}>${analysis(ctx, o)}</div>`)}
          ${section('failed-title', t('web.order.failed_items'), failedItems(ctx, o))}
          ${section('layers-title', t('web.order.layers'), layers(ctx, o))}
          ${section('review-title', t('web.order.review'), review(ctx, o))}
          ${options.history ? section('history-title', t('web.order.history'), orderHistoryList(ctx, options.history)) : ''}
        </div>
      </div>`,
  });
}
