/** Presentation of data values: dates in the page language (UTC, stated), numbers as given. */
import type { Language } from '../../i18n/index.js';
import { html, type SafeHtml } from '../html.js';

const formatters = new Map<Language, Intl.DateTimeFormat>();

/** A `<time>` element showing an ISO timestamp in the page's language, in UTC. */
export function timeElement(lang: Language, iso: string | Date | null | undefined, fallback = ''): SafeHtml {
  if (iso === null || iso === undefined) return html`${fallback}`;
  const date = iso instanceof Date ? iso : new Date(iso);
  if (Number.isNaN(date.getTime())) return html`${String(iso)}`;
  let f = formatters.get(lang);
  if (!f) {
    f = new Intl.DateTimeFormat(lang, { dateStyle: 'medium', timeStyle: 'short', timeZone: 'UTC' });
    formatters.set(lang, f);
  }
  return html`<time datetime="${date.toISOString()}">${f.format(date)} UTC</time>`;
}

/** A kebab-case CSS class for an order state ("Action Required" → "state-action-required"). */
export function stateClass(state: string): string {
  return `state-${state.toLowerCase().replace(/[^a-z0-9]+/g, '-')}`;
}
