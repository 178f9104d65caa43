/**
 * The order page's history section (organization administrators only): the events of
 * GET /v1/orders/{order_id}/history, oldest first. Every value (notes, actors, changed values) is data
 * the page escapes; event types are labelled in the page's language, states and field names are shown as
 * they are (data values are never translated).
 */
import type { OrderHistoryEventT } from '../../contract/history-schemas.js';
import { html, type SafeHtml } from '../html.js';
import type { Translator, WebContext } from '../web-context.js';
import { stateClass, timeElement } from './format.js';

const TYPE_LABELS: Record<OrderHistoryEventT['type'], Parameters<Translator>[0]> = {
  created: 'web.history.type.created',
  state_changed: 'web.history.type.state_changed',
  analysis_completed: 'web.history.type.analysis_completed',
  annotation_changed: 'web.history.type.annotation_changed',
  claimed: 'web.history.type.claimed',
  responded: 'web.history.type.responded',
  certificate_issued: 'web.history.type.certificate_issued',
  certificate_revoked: 'web.history.type.certificate_revoked',
};

const isAnalysisLine = (v: unknown): v is { analysis_type: string; analysis_passed: boolean } =>
  typeof v === 'object' && v !== null && typeof (v as { analysis_type?: unknown }).analysis_type === 'string' && typeof (v as { analysis_passed?: unknown }).analysis_passed === 'boolean';

/** A changed value in a line: analysis entries as `check ✓/✗`, lists of texts joined, other lists counted. */
function valueText(ctx: WebContext, value: unknown): string {
  if (value === null || value === undefined || value === '') return '—';
  if (Array.isArray(value)) {
    if (value.length === 0) return ctx.t('web.none');
    if (value.every(isAnalysisLine)) return value.map((l) => `${l.analysis_type} ${l.analysis_passed ? '✓' : '✗'}`).join(', ');
    if (value.every((v) => typeof v === 'string' || typeof v === 'number')) return value.join(', ');
    return ctx.t('web.history.items', { count: value.length });
  }
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

function changesList(ctx: WebContext, changes: OrderHistoryEventT['changes']): SafeHtml {
  if (!changes) return html``;
  return html`<dl class="compact history-changes" aria-label="${ctx.t('web.history.changes')}">${Object.entries(changes).map(
    ([field, { before, after }]) => html`<dt><code>${field}</code></dt><dd data-change="${field}">${valueText(ctx, before)} → ${valueText(ctx, after)}</dd>`,
  )}</dl>`;
}

function eventItem(ctx: WebContext, e: OrderHistoryEventT): SafeHtml {
  const move =
    e.to_state !== null
      ? html`<p class="history-move">${e.from_state !== null ? html`<span class="badge ${stateClass(e.from_state)}">${e.from_state}</span> → ` : ''}<span class="badge ${stateClass(e.to_state)}">${e.to_state}</span></p>`
      : '';
  return html`<li data-event-type="${e.type}" data-event-id="${e.event_id}">
    <p class="history-head"><strong>${ctx.t(TYPE_LABELS[e.type])}</strong> · ${timeElement(ctx.lang, e.at)} · <span class="history-actor">${ctx.t('web.history.by', { actor: e.actor })}</span></p>
    ${move}
    ${e.note !== null ? html`<blockquote class="history-note">${e.note}</blockquote>` : ''}
    ${changesList(ctx, e.changes)}
  </li>`;
}

/** The events, oldest first; a sentence when none was recorded (orders loaded by seed or import). */
export function orderHistoryList(ctx: WebContext, events: readonly OrderHistoryEventT[]): SafeHtml {
  if (events.length === 0) return html`<p data-history="none">${ctx.t('web.history.none')}</p>`;
  return html`<ol class="history" data-history="events">${events.map((e) => eventItem(ctx, e))}</ol>`;
}
