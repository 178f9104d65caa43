/**
 * The asset preview with its annotations drawn over it. The SVG uses a 0..1 viewBox stretched over the
 * image (preserveAspectRatio none), so normalized coordinates map straight onto the picture whatever its
 * displayed size. One focusable shape per annotation; its details are rendered server-side in a hidden
 * panel that app.js shows on hover or keyboard focus (and that the list below repeats for everyone).
 */
import type { AnnotationT } from '../../contract/schemas.js';
import { html, type SafeHtml } from '../html.js';
import type { WebContext } from '../web-context.js';

const clamp = (n: number): number => (Number.isFinite(n) ? Math.min(1, Math.max(0, n)) : 0);
const num = (n: number): string => String(Math.round(clamp(n) * 1e6) / 1e6);

/** The SVG element of one annotation, or null when it has no drawable target. */
function shape(a: AnnotationT, index: number, label: string): SafeHtml | null {
  const selector = a.target?.selector;
  if (!selector) return null;
  const { bounds, points } = selector.geometry;
  const remediation = a.properties?.needs_remediation === true;
  const common = html`class="annotation${remediation ? ' needs-remediation' : ''}" tabindex="0" role="button"
    aria-label="${label}" aria-describedby="annotation-tip-${index}" data-annotation-index="${index}"
    data-annotation-id="${a.id ?? ''}" data-shape="${selector.type}" data-needs-remediation="${String(remediation)}"
    data-min-x="${bounds.minX}" data-min-y="${bounds.minY}" data-max-x="${bounds.maxX}" data-max-y="${bounds.maxY}"
    vector-effect="non-scaling-stroke"`;
  if (selector.type === 'POLYGON' && points && points.length >= 3) {
    const list = points.map((p) => `${num(p[0] ?? 0)},${num(p[1] ?? 0)}`).join(' ');
    return html`<polygon points="${list}" ${common}></polygon>`;
  }
  // RECTANGLE (and a polygon without usable points): the bounds.
  const x = clamp(Math.min(bounds.minX, bounds.maxX));
  const y = clamp(Math.min(bounds.minY, bounds.maxY));
  const w = clamp(Math.max(bounds.minX, bounds.maxX)) - x;
  const h = clamp(Math.max(bounds.minY, bounds.maxY)) - y;
  return html`<rect x="${num(x)}" y="${num(y)}" width="${num(w)}" height="${num(h)}" ${common}></rect>`;
}

/** What an annotation says: its bodies' values, AI likelihood and remediation flag. */
export function annotationDetails(ctx: WebContext, a: AnnotationT): SafeHtml {
  const values = (a.bodies ?? []).map((b) => html`<li>${b.value}</li>`);
  const likelihood = a.properties?.ai_likelihood;
  return html`<ul class="bodies">${values.length ? values : html`<li>${ctx.t('web.none')}</li>`}</ul>
    <dl class="compact">
      <dt>${ctx.t('web.order.ai_likelihood')}</dt><dd>${likelihood === null || likelihood === undefined ? '—' : likelihood}</dd>
      <dt>${ctx.t('web.order.needs_remediation')}</dt><dd>${a.properties?.needs_remediation ? ctx.t('web.yes') : ctx.t('web.no')}</dd>
    </dl>`;
}

export function annotationLabel(ctx: WebContext, a: AnnotationT, index: number): string {
  return ctx.t('web.order.annotation', { id: a.id ?? String(index + 1) });
}

export function annotationOverlay(ctx: WebContext, imageUrl: string, imageAlt: string, annotations: AnnotationT[]): SafeHtml {
  const shapes = annotations.map((a, i) => shape(a, i, annotationLabel(ctx, a, i)));
  const tips = annotations.map(
    (a, i) => html`<div class="annotation-tip" id="annotation-tip-${i}" role="tooltip" hidden>
      <strong>${annotationLabel(ctx, a, i)}</strong>${annotationDetails(ctx, a)}</div>`,
  );
  return html`<figure class="overlay" data-annotation-count="${annotations.length}">
    <div class="overlay-stage">
      <img src="${imageUrl}" alt="${imageAlt}" class="overlay-image">
      <svg class="overlay-shapes" viewBox="0 0 1 1" preserveAspectRatio="none" role="group" aria-label="${ctx.t('web.order.annotations')}">${shapes}</svg>
      ${tips}
    </div>
    ${annotations.length ? html`<figcaption>${ctx.t('web.order.overlay_help')}</figcaption>` : ''}
  </figure>`;
}
