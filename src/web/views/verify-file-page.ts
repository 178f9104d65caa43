/**
 * `/verify`: checks a file's Content Credentials. The page is static; its script (verify-file.ts) reads
 * a dropped or chosen image in the browser with the C2PA reference implementation (WebAssembly served by
 * this origin, fetched only when a file is given), checks the certificate it carries against the JWKS and
 * asks its live status. Nothing is uploaded.
 */
import { html, SafeHtml } from '../html.js';
import { assetUrl } from '../static-assets.js';
import type { WebContext } from '../web-context.js';
import { page } from './layout.js';

export interface VerifyFilePageModel {
  issuer: string;
}

/** Same-origin paths the script reads (the CSP allows only this origin). */
export const JWKS_PATH = '/.well-known/jwks.json';
export const TRUST_ANCHORS_PATH = '/.well-known/c2pa-trust-anchors.pem';
export const LOG_KEY_PATH = '/log/key';
/** The reasons a log check can fail for, each with its words (as on the certificate page). */
const LOG_FAILURES = ['missing', 'signature', 'inclusion', 'entry', 'malformed', 'unsupported'] as const;

/** The attributes that tell a verify page's script where the C2PA reader and certdesk's trust anchors are. */
export function c2paReaderAttributes(): SafeHtml {
  return html` data-c2pa-wasm-url="${assetUrl('c2pa.wasm')}" data-trust-anchors-url="${TRUST_ANCHORS_PATH}"`;
}

export function verifyFilePage(ctx: WebContext, model: VerifyFilePageModel): SafeHtml {
  const t = ctx.t;
  const messages: Record<string, string> = {
    'verdict-reading': t('web.verify_file.reading'),
    'verdict-certified': t('web.verify_file.verdict_certified'),
    'verdict-revoked': t('web.verify_file.verdict_revoked'),
    'verdict-altered': t('web.verify_file.verdict_altered'),
    'verdict-untrusted': t('web.verify_file.verdict_untrusted'),
    'verdict-bad-signature': t('web.verify_file.verdict_bad_signature'),
    'verdict-foreign': t('web.verify_file.verdict_foreign'),
    'verdict-unknown': t('web.verify_file.verdict_unknown'),
    'verdict-none': t('web.verify_file.verdict_none'),
    'verdict-other': t('web.verify_file.verdict_other'),
    'verdict-error': t('web.verify_file.verdict_error'),
    'check-intact': t('web.verify_file.check_intact'),
    'check-altered': t('web.verify_file.check_altered'),
    'check-other-intact': t('web.verify_file.check_other_intact'),
    'check-signer': t('web.verify_file.check_signer'),
    'check-signer-untrusted': t('web.verify_file.check_signer_untrusted'),
    'check-signature-valid': t('web.verify_file.check_signature_valid'),
    'check-signature-invalid': t('web.verify_file.check_signature_invalid'),
    'check-status-valid': t('web.verify_file.check_status_valid'),
    'check-status-revoked': t('web.verify_file.check_status_revoked'),
    'verdict-bad-log': t('web.verify_file.verdict_bad_log'),
    'log-included': t('web.verify.log_included'),
    'log-included-file': t('web.verify_file.log_included_file'),
    'log-revocation': t('web.verify.log_revocation'),
    'log-pending': t('web.verify.log_pending'),
    'log-failed': t('web.verify.log_failed'),
    'log-unavailable': t('web.verify_file.log_unavailable'),
    ...Object.fromEntries(LOG_FAILURES.map((reason) => [`log-reason-${reason}`, t(`web.verify.log_reason.${reason}`)])),
    'unknown-signer': t('web.verify_file.unknown_signer'),
    'unknown-generator': t('web.verify_file.unknown_generator'),
    'reason-signature': t('web.verify.reason.signature'),
    'reason-key': t('web.verify.reason.key'),
    'reason-issuer': t('web.verify.reason.issuer'),
    'reason-format': t('web.verify.reason.format'),
    'reason-mismatch': t('web.verify.reason.mismatch'),
    'reason-unavailable': t('web.verify.reason.unavailable'),
    'reason-unsupported': t('web.verify.reason.unsupported'),
  };
  const messageAttributes = html`${Object.entries(messages).map(([name, value]) => html` ${new SafeHtml(`data-msg-${name}`)}="${value}"`)}`;
  return page(ctx, {
    title: t('web.verify_file.title'),
    scripts: ['verify-file.js'],
    body: html`<h1>${t('web.verify_file.title')}</h1>
<section class="panel certificate-check" id="file-check"
  data-issuer="${model.issuer}"
  data-jwks-url="${JWKS_PATH}"
  data-log-key-url="${LOG_KEY_PATH}"${c2paReaderAttributes()}${messageAttributes}>
  <p>${t('web.verify_file.intro')}</p>
  <div class="drop-zone" id="drop-zone">
    <label for="file-to-check">${t('web.verify_file.file_label')}</label>
    <input type="file" id="file-to-check" name="file" accept="image/*">
  </div>
  <div id="file-result" class="file-verdict" role="status" aria-live="polite" data-verdict="none-yet" hidden>
    <p id="file-verdict" class="certificate-verdict"></p>
    <ul id="file-checks" class="file-checks"></ul>
    <p><a id="certificate-link" href="/verify" hidden>${t('web.verify_file.certificate_link')}</a></p>
  </div>
  <p class="muted">${t('web.verify_file.privacy')}</p>
</section>`,
  });
}
