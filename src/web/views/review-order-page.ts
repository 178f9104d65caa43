/**
 * The review page `/review/orders/{order_id}` (docs/review.md): what a review needs and nothing more (the
 * order, its files, analysis, organization name, the project's detection thresholds, requests and
 * responses with evidence), the claim's status, and the decision form. The annotation editor and the
 * keyboard shortcuts come with the browser bundle; the page already carries what they need
 * (`data-review-root`: order id, claim id, CSRF token, the save and renew URLs).
 */
import type { OrderT } from '../../contract/schemas.js';
import type { CertificateRow } from '../../domain/certificates/index.js';
import type { OpenResult, ReviewMaterial } from '../../domain/review/index.js';
import { catalogues, type MessageKey } from '../../i18n/index.js';
import { html, type SafeHtml } from '../html.js';
import { CSRF_FIELD } from '../session/csrf.js';
import type { WebContext } from '../web-context.js';
import { annotationOverlay } from './annotation-overlay.js';
import { stateClass, timeElement } from './format.js';
import { page } from './layout.js';
import { analysis, annotationList, failedItems, layers } from './order-page.js';

/**
 * The decision buttons: the contract names them exactly (accessible names), so they keep these names in
 * every language; the help text around them is translated.
 */
export const DECISION_BUTTONS = [
  { value: 'certify', label: 'Certify' },
  { value: 'record_findings', label: 'Record findings' },
  { value: 'ask_for_evidence', label: 'Ask for evidence' },
  { value: 'refuse', label: 'Refuse' },
] as const;
export const NOTE_LABEL = 'Note';
/** The revocation control's accessible name (DECISIONS 9: a control named `Revoke`), the same in every language. */
export const REVOKE_LABEL = 'Revoke';

const EDITOR_PREFIX = 'web.review.editor.';
const EDITOR_KEYS = Object.keys(catalogues.en).filter((k) => k.startsWith(EDITOR_PREFIX)) as Array<MessageKey & `web.${string}`>;

/** The editor's texts (review-editor.ts) in the page's language: `{short name: text}`, placeholders left in. */
export function editorMessages(ctx: WebContext): Record<string, string> {
  return Object.fromEntries(EDITOR_KEYS.map((k) => [k.slice(EDITOR_PREFIX.length), ctx.t(k)]));
}

export function reviewOrderHref(orderId: string): string {
  return `/review/orders/${encodeURIComponent(orderId)}`;
}

function section(id: string, title: string, body: SafeHtml): SafeHtml {
  return html`<section class="panel" aria-labelledby="${id}"><h2 id="${id}">${title}</h2>${body}</section>`;
}

function field(label: string, value: SafeHtml | string | number): SafeHtml {
  return html`<div class="field"><dt>${label}</dt><dd>${value}</dd></div>`;
}

function context(ctx: WebContext, m: ReviewMaterial): SafeHtml {
  const t = ctx.t;
  const o = m.order;
  const c = m.detectionConfig;
  return html`<dl class="fields" data-review-context>
    ${field(t('web.review.organization'), html`<span data-organization-name>${m.organizationName}</span>`)}
    ${field(t('web.review.project'), m.projectName ?? t('web.review.personal'))}
    ${field(t('web.order.id'), html`<code>${o.order_id}</code>`)}
    ${field(t('web.order.created'), timeElement(ctx.lang, o.creation_time))}
    ${field(t('web.order.asset'), o.asset_name)}
    ${field(t('web.order.confidence'), html`<span data-field="confidence">${o.confidence ?? 0}</span>`)}
    ${field(t('web.order.remediation'), html`<span data-field="remediation">${o.remediation ?? 0}</span>`)}
    ${field(t('web.order.tags'), (o.tags ?? []).join(', ') || '—')}
  </dl>
  <h3>${t('web.review.detection_config')}</h3>
  <dl class="fields" data-detection-config>
    ${Object.entries(c).map(([k, v]) => field(k, String(v)))}
  </dl>`;
}

function evidence(ctx: WebContext, m: ReviewMaterial): SafeHtml {
  const t = ctx.t;
  if (m.evidence.length === 0) return html`<p>${t('web.none')}</p>`;
  return html`<ol class="evidence-thread">${m.evidence.map(
    (e) => html`<li data-evidence-kind="${e.kind}">
      <p><strong>${e.kind === 'response' ? t('web.review.response') : e.byReviewer ? t('web.review.request_reviewer') : t('web.review.request_analysis')}</strong>
        · ${timeElement(ctx.lang, e.at)}</p>
      <blockquote class="note">${e.text}</blockquote>
      ${e.evidence.length
        ? html`<p>${t('web.review.evidence_files')}</p><ul class="evidence-files">${e.evidence.map(
            (f) => html`<li><a href="${f.url}" download data-evidence-file>${t('web.review.download', { name: f.name })}</a> <span class="muted">${f.contentType}</span></li>`,
          )}</ul>`
        : ''}
    </li>`,
  )}</ol>`;
}

function claimStatus(ctx: WebContext, open: OpenResult): SafeHtml {
  const t = ctx.t;
  if (open.state !== 'In Progress') return html`<p class="message info" role="status" data-claim="none">${t('web.review.not_in_review', { state: open.state })}</p>`;
  if (open.analysisRunning) return html`<p class="message info" role="status" data-claim="none">${t('web.review.analysis_running')}</p>`;
  if (open.heldBy) {
    return html`<p class="message info" role="status" data-claim="other">${t('web.review.claim_other', { name: open.heldBy.name, time: timeElement(ctx.lang, open.heldBy.expiresAt).toString().replace(/<[^>]+>/g, '') })}</p>`;
  }
  if (open.claim) {
    return html`<p class="message info" role="status" data-claim="yours" data-claim-status data-lost-message="${t('web.review.claim_lost')}">${t('web.review.claim_yours', {
      time: timeElement(ctx.lang, open.claim.expiresAt).toString().replace(/<[^>]+>/g, ''),
    })}</p>`;
  }
  return html``;
}

function decisionForm(ctx: WebContext, orderId: string, claimId: string, error: string | null): SafeHtml {
  const t = ctx.t;
  const csrf = ctx.session?.csrfToken ?? '';
  return html`<form method="post" action="${reviewOrderHref(orderId)}/decision" class="stacked decision-form" data-decision-form>
      <input type="hidden" name="${CSRF_FIELD}" value="${csrf}">
      <input type="hidden" name="claim_id" value="${claimId}">
      <label for="decision-note">${NOTE_LABEL}</label>
      <textarea id="decision-note" name="note" rows="4" maxlength="10000" required aria-describedby="decision-note-help"></textarea>
      <p class="help" id="decision-note-help">${t('web.review.note_help')}</p>
      ${error ? html`<p class="message error" role="alert">${error}</p>` : ''}
      <div class="decision-buttons">${DECISION_BUTTONS.map(
        (b) => html`<button type="submit" name="decision" value="${b.value}" class="${b.value === 'certify' ? 'primary' : ''}">${b.label}</button>`,
      )}</div>
    </form>
    <form method="post" action="${reviewOrderHref(orderId)}/claim/release" class="inline">
      <input type="hidden" name="${CSRF_FIELD}" value="${csrf}">
      <input type="hidden" name="claim_id" value="${claimId}">
      <button type="submit" class="link-button">${t('web.review.release')}</button>
    </form>`;
}

/**
 * The order's certificate (a certified order): its status, a link to its public page and, while valid, the
 * `Revoke` form with a required reason. Revocation is final: the form is gone once it is revoked.
 */
function certificatePanel(ctx: WebContext, orderId: string, c: CertificateRow, error: string | null): SafeHtml {
  const t = ctx.t;
  const revoked = c.revoked_at !== null;
  const verifyHref = `/verify/${encodeURIComponent(c.certificate_id)}`;
  const facts = html`<dl class="fields" data-certificate-status="${revoked ? 'revoked' : 'valid'}">
    ${field(t('web.verify.status'), html`<strong>${revoked ? 'Revoked' : 'Human Certified'}</strong>`)}
    ${field(t('web.verify.certificate_id'), html`<a href="${verifyHref}" data-verify-link><code>${c.certificate_id}</code></a>`)}
    ${field(t('web.verify.issued'), timeElement(ctx.lang, c.issued_at))}
    ${revoked ? field(t('web.review.revoked_at'), timeElement(ctx.lang, c.revoked_at)) : ''}
    ${revoked ? field(t('web.review.revocation_reason'), html`<span data-revocation-reason>${c.revocation_reason ?? ''}</span>`) : ''}
  </dl>
  <p><a href="${verifyHref}">${t('web.review.open_verify')}</a></p>`;
  if (revoked) return facts;
  return html`${facts}
    <form method="post" action="${reviewOrderHref(orderId)}/certificate/revoke" class="stacked revoke-form" data-revoke-form>
      <input type="hidden" name="${CSRF_FIELD}" value="${ctx.session?.csrfToken ?? ''}">
      <label for="revoke-reason">${t('web.review.revoke_reason')}</label>
      <textarea id="revoke-reason" name="reason" rows="3" maxlength="2000" required aria-describedby="revoke-help"></textarea>
      <p class="help" id="revoke-help">${t('web.review.revoke_help')}</p>
      ${error ? html`<p class="message error" role="alert">${error}</p>` : ''}
      <div class="decision-buttons"><button type="submit" class="danger">${REVOKE_LABEL}</button></div>
    </form>`;
}

export interface ReviewPageOptions {
  /** The order's certificate, when it has one (shown with its Revoke control). */
  certificate?: CertificateRow | null;
  /** A refusal of the last revocation (shown above the Revoke button). */
  revocationError?: string | null;
  /** A refusal of the last decision (shown above the form). */
  error?: string | null;
  /** Milliseconds between claim renewals (the page's script). */
  renewEveryMs: number;
}

export function reviewOrderPage(ctx: WebContext, m: ReviewMaterial, open: OpenResult, options: ReviewPageOptions): SafeHtml {
  const t = ctx.t;
  const o: OrderT = m.order;
  const annotations = o.annotations ?? [];
  const preview = o.asset_preview_url
    ? annotationOverlay(ctx, o.asset_preview_url, t('web.orders.preview_alt', { title: o.order_title }), annotations)
    : html`<div class="no-preview large">${t('web.orders.no_preview')}</div>`;
  const href = reviewOrderHref(o.order_id);
  // What the editor (review-editor.js) starts from; an attribute value, escaped like any other, read with
  // JSON.parse (never evaluated). Only with a claim of the reader's: nobody else may edit.
  const editorState = JSON.stringify({
    preview_url: o.asset_preview_url,
    preview_alt: t('web.orders.preview_alt', { title: o.order_title }),
    layers: (o.layers_info ?? []).map((l) => ({ name: l.layer_name, url: l.layer_url })),
    annotations,
    remediation: o.remediation ?? 0,
    confidence: o.confidence ?? 0,
  });
  const root = open.claim
    ? html`data-review-root data-order-id="${o.order_id}" data-claim-id="${open.claim.claimId}" data-csrf="${ctx.session?.csrfToken ?? ''}"
        data-renew-url="${href}/claim/renew" data-edits-url="${href}/edits" data-renew-every-ms="${options.renewEveryMs}"
        data-editor-state="${editorState}" data-editor-messages="${JSON.stringify(editorMessages(ctx))}"`
    : html`data-review-root data-order-id="${o.order_id}"`;
  return page(ctx, {
    title: o.order_title,
    active: 'review',
    scripts: ['review-claim.js', 'review-editor.js'],
    body: html`<div ${root}>
      <p><a href="/review">← ${t('web.review.back')}</a></p>
      <h1>${o.order_title} <span class="badge ${stateClass(o.order_state)}">${o.order_state}</span></h1>
      ${claimStatus(ctx, open)}
      ${open.claim && !m.original ? html`<p class="message warning" role="note" data-no-asset-bytes>${t('web.review.no_asset_bytes')}</p>` : ''}
      ${open.claim ? section('decision-title', t('web.review.decision_title'), decisionForm(ctx, o.order_id, open.claim.claimId, options.error ?? null)) : ''}
      ${options.certificate ? section('certificate-title', t('web.review.certificate_title'), certificatePanel(ctx, o.order_id, options.certificate, options.revocationError ?? null)) : ''}
      ${section('preview-title', t('web.order.preview'), html`<div data-review-editor>${preview}</div>`)}
      <div class="order-layout">
        <div class="order-visual">
          ${section('layers-title', t('web.order.layers'), layers(ctx, o))}
          <div data-static-annotations>${section('annotations-title', t('web.order.annotations'), annotationList(ctx, o))}</div>
        </div>
        <div class="order-info">
          ${section('context-title', t('web.review.context'), context(ctx, m))}
          ${section('original-title', t('web.review.original'), m.original ? html`<p><a href="${m.original.url}" download data-original>${t('web.review.download', { name: m.original.name })}</a> <span class="muted">${m.original.contentType}</span></p>` : html`<p>${t('web.none')}</p>`)}
          ${section('analysis-title', t('web.order.analysis'), analysis(ctx, o))}
          ${section('failed-title', t('web.order.failed_items'), failedItems(ctx, o))}
          ${section('evidence-title', t('web.review.evidence_title'), evidence(ctx, m))}
        </div>
      </div>
    </div>`,
  });
}
