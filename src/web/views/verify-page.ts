/**
 * `/verify/{certificate_id}`: a certificate for anyone who has its link. The server states what it has
 * recorded (status, organization, asset, issue date); the browser then checks the signature itself
 * (WebCrypto against the JWKS) and hashes a chosen or dropped file locally (verify.ts), so a visitor
 * need not trust this page's words, only the published keys.
 */
import type { CertificateClaims, CertificateRow } from '../../domain/certificates/index.js';
import { html, SafeHtml } from '../html.js';
import type { WebContext } from '../web-context.js';
import { timeElement } from './format.js';
import { copyButton, page } from './layout.js';
import { c2paReaderAttributes } from './verify-file-page.js';

export interface VerifyPageModel {
  row: CertificateRow;
  /** The certificate's signed claims (decoded server-side for display; the browser verifies them). */
  claims: CertificateClaims;
  issuer: string;
  /** The JWKS as verifiers elsewhere fetch it (absolute, shown); the page itself reads this service's own. */
  jwksUrl: string;
  /** The badge as other sites embed it (absolute, in the snippet). */
  badgeUrl: string;
}

/** Same-origin paths the page's own image and script use (the CSP allows only this origin). */
const JWKS_PATH = '/.well-known/jwks.json';
/** The transparency log's verifier key (DECISIONS 14), same origin. */
const LOG_KEY_PATH = '/log/key';
/** The log check's failure reasons the script names (src/web/client/verify.ts). */
const LOG_FAILURES = ['missing', 'signature', 'inclusion', 'entry', 'malformed', 'unavailable', 'unsupported'] as const;
const badgePath = (id: string) => `/verify/${id}/badge.svg`;

/** The HTML other sites paste to show the badge, linking to this page. */
export function badgeSnippet(model: Pick<VerifyPageModel, 'badgeUrl'> & { verifyUrl: string; status: 'valid' | 'revoked' }): string {
  const alt = model.status === 'valid' ? 'Human Certified' : 'Revoked';
  const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');
  return `<a href="${esc(model.verifyUrl)}"><img src="${esc(model.badgeUrl)}" alt="${alt} (certdesk)" height="20"></a>`;
}

export function verifyPage(ctx: WebContext, model: VerifyPageModel): SafeHtml {
  const { row, claims, t } = { ...model, t: ctx.t };
  const revoked = row.revoked_at !== null;
  const status = revoked ? 'revoked' : 'valid';
  const snippet = badgeSnippet({ badgeUrl: model.badgeUrl, verifyUrl: row.verify_url, status });
  const field = (label: string, value: SafeHtml | string) => html`<div class="field"><dt>${label}</dt><dd>${value}</dd></div>`;
  // Messages the browser script shows, in the page's language ({placeholders} filled in there).
  const messages = {
    'data-msg-checking': t('web.verify.signature_checking'),
    'data-msg-valid': t('web.verify.signature_valid'),
    'data-msg-invalid': t('web.verify.signature_invalid'),
    'data-msg-reason-signature': t('web.verify.reason.signature'),
    'data-msg-reason-key': t('web.verify.reason.key'),
    'data-msg-reason-issuer': t('web.verify.reason.issuer'),
    'data-msg-reason-format': t('web.verify.reason.format'),
    'data-msg-reason-mismatch': t('web.verify.reason.mismatch'),
    'data-msg-reason-unavailable': t('web.verify.reason.unavailable'),
    'data-msg-reason-unsupported': t('web.verify.reason.unsupported'),
    'data-msg-hashing': t('web.verify.file_hashing'),
    'data-msg-match': t('web.verify.file_match'),
    'data-msg-mismatch': t('web.verify.file_mismatch'),
    'data-msg-unverified': t('web.verify.file_unverified'),
    'data-msg-revoked-match': t('web.verify.file_revoked'),
    'data-msg-reading-credentials': t('web.verify.file_reading_credentials'),
    'data-msg-credentialed-match': t('web.verify.file_credentialed_match'),
    'data-msg-credentialed-altered': t('web.verify.file_credentialed_altered'),
    'data-msg-log-included': t('web.verify.log_included'),
    'data-msg-log-revocation': t('web.verify.log_revocation'),
    'data-msg-log-pending': t('web.verify.log_pending'),
    'data-msg-log-failed': t('web.verify.log_failed'),
    ...Object.fromEntries(LOG_FAILURES.map((reason) => [`data-msg-log-reason-${reason}`, t(`web.verify.log_reason.${reason}`)])),
  };
  const messageAttributes = html`${Object.entries(messages).map(([name, value]) => html` ${new SafeHtml(name)}="${value}"`)}`;
  return page(ctx, {
    title: `${t('web.verify.title')} ${row.certificate_id}`,
    scripts: ['verify.js'],
    body: html`<h1>${t('web.verify.title')}</h1>
<section class="panel certificate-status ${revoked ? 'is-revoked' : 'is-valid'}" aria-labelledby="certificate-status">
  <p id="certificate-status" class="certificate-verdict" data-status="${status}"><img src="${badgePath(row.certificate_id)}" alt="" height="20"> ${revoked ? t('web.verify.status_revoked') : t('web.verify.status_valid')}</p>
  ${revoked ? html`<p class="message error" role="alert">${t('web.verify.revoked_on', { date: '{date}', reason: '{reason}' }).split(/(\{date\}|\{reason\})/).map((part) => (part === '{date}' ? timeElement(ctx.lang, row.revoked_at) : part === '{reason}' ? html`<q>${row.revocation_reason ?? ''}</q>` : part))}</p>` : ''}
  <dl class="fields">
    ${field(t('web.verify.status'), html`<strong>${revoked ? 'Revoked' : 'Human Certified'}</strong>`)}
    ${field(t('web.verify.organization'), claims.org_name)}
    ${field(t('web.verify.asset_name'), html`<span class="asset-name">${claims.asset_name}</span>`)}
    ${field(t('web.verify.issued'), timeElement(ctx.lang, row.issued_at))}
    ${field(t('web.verify.certificate_id'), html`<code>${row.certificate_id}</code>`)}
    ${field(t('web.verify.digest'), html`<code class="digest">${claims.asset_sha256}</code>`)}
  </dl>
</section>
<section class="panel certificate-check" id="certificate-check"
  data-certificate-id="${row.certificate_id}"
  data-certificate-url="/v1/certificates/${row.certificate_id}"
  data-jwks-url="${JWKS_PATH}"
  data-log-key-url="${LOG_KEY_PATH}"
  data-issuer="${model.issuer}"${c2paReaderAttributes()}${messageAttributes}>
  <h2>${t('web.verify.signature_heading')}</h2>
  <p id="signature-result" class="check-result" role="status" aria-live="polite" data-result="checking">${t('web.verify.signature_checking')}</p>
  <h2>${t('web.verify.log_heading')}</h2>
  <p id="log-result" class="check-result" role="status" aria-live="polite" data-result="checking">${t('web.verify.log_checking')}</p>
  <h2>${t('web.verify.file_heading')}</h2>
  <p class="muted">${t('web.verify.file_help')} <a href="/verify">${t('web.verify.check_any_file')}</a></p>
  <div class="drop-zone" id="drop-zone">
    <label for="file-to-check">${t('web.verify.file_label')}</label>
    <input type="file" id="file-to-check" name="file">
  </div>
  <p id="file-result" class="check-result" role="status" aria-live="polite" data-result="none"></p>
</section>
<section class="panel">
  <h2>${t('web.verify.embed_heading')}</h2>
  <p class="muted">${t('web.verify.embed_help')}</p>
  <p><a href="${row.verify_url}"><img src="${badgePath(row.certificate_id)}" alt="${revoked ? 'Revoked' : 'Human Certified'} (certdesk)" height="20"></a></p>
  <h3 id="badge-snippet-label">${t('web.verify.embed_label')}</h3>
  <pre class="snippet" aria-labelledby="badge-snippet-label"><code id="badge-snippet">${snippet}</code></pre>
  ${copyButton(ctx, 'badge-snippet', t('web.verify.embed_label'))}
</section>
<section class="panel">
  <details>
    <summary>${t('web.verify.jws_heading')}</summary>
    <p class="muted">${t('web.verify.jws_help', { jwks: model.jwksUrl })}</p>
    <pre class="snippet jws"><code id="certificate-jws">${row.jws}</code></pre>
    ${copyButton(ctx, 'certificate-jws', 'JWS')}
  </details>
</section>`,
  });
}
