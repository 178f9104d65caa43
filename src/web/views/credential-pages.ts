/** The one-time display of a new credential's secret, and the revocation confirmation. */
import { html, type SafeHtml } from '../html.js';
import { CSRF_FIELD } from '../session/csrf.js';
import type { WebContext } from '../web-context.js';
import { copyButton, page } from './layout.js';

export interface CreatedCredentialView {
  name: string;
  clientId: string;
  clientSecret: string;
  scopes: string[];
  tokenUrl: string;
  ordersUrl: string;
}

/** A shell-safe single-quoted word (client ids and secrets are URL-safe, but never trust that). */
function shellQuote(value: string): string {
  return `'${value.replace(/'/g, `'\\''`)}'`;
}

/** Two lines that work as pasted: get a token (HTTP Basic), then call the API with it. */
export function curlExample(view: Pick<CreatedCredentialView, 'clientId' | 'clientSecret' | 'tokenUrl' | 'ordersUrl'>): string {
  return [
    `TOKEN=$(curl -s -u ${shellQuote(`${view.clientId}:${view.clientSecret}`)} -d grant_type=client_credentials ${shellQuote(view.tokenUrl)} | sed -E 's/.*"access_token":"([^"]+)".*/\\1/')`,
    `curl -s -H "Authorization: Bearer $TOKEN" ${shellQuote(view.ordersUrl)}`,
  ].join('\n');
}

export function credentialCreatedPage(ctx: WebContext, view: CreatedCredentialView): SafeHtml {
  const t = ctx.t;
  return page(ctx, {
    title: t('web.cred.created_title', { name: view.name }),
    active: 'organization',
    languageBase: '/organization',
    body: html`<h1>${t('web.cred.created_title', { name: view.name })}</h1>
      <p class="message warning" role="alert">${t('web.cred.secret_once')}</p>
      <section class="panel" aria-labelledby="secret-title">
        <h2 id="secret-title" class="visually-hidden">${t('web.cred.client_secret')}</h2>
        <dl class="fields">
          <div class="field"><dt>${t('web.cred.client_id')}</dt>
            <dd class="copy-row"><code id="client-id" class="secret-value">${view.clientId}</code> ${copyButton(ctx, 'client-id', t('web.cred.client_id'))}</dd></div>
          <div class="field"><dt>${t('web.cred.client_secret')}</dt>
            <dd class="copy-row"><code id="client-secret" class="secret-value">${view.clientSecret}</code> ${copyButton(ctx, 'client-secret', t('web.cred.client_secret'))}</dd></div>
          <div class="field"><dt>${t('web.cred.scopes')}</dt><dd>${view.scopes.map((s) => html`<code class="scope">${s}</code> `)}</dd></div>
        </dl>
      </section>
      <section class="panel" aria-labelledby="example-title">
        <h2 id="example-title">${t('web.cred.example')}</h2>
        <pre class="code"><code id="curl-example">${curlExample(view)}</code></pre>
        ${copyButton(ctx, 'curl-example', t('web.cred.example'))}
      </section>
      <p><a href="/organization#credentials">← ${t('web.cred.back')}</a></p>`,
  });
}

export function revokeConfirmPage(ctx: WebContext, view: { name: string; clientId: string; csrfToken: string }): SafeHtml {
  const t = ctx.t;
  return page(ctx, {
    title: t('web.cred.revoke_title', { name: view.name }),
    active: 'organization',
    body: html`<section class="panel narrow">
      <h1>${t('web.cred.revoke_title', { name: view.name })}</h1>
      <p><code>${view.clientId}</code></p>
      <p>${t('web.cred.revoke_body')}</p>
      <form method="post" action="/organization/credentials/${encodeURIComponent(view.clientId)}/revoke" class="actions">
        <input type="hidden" name="${CSRF_FIELD}" value="${view.csrfToken}">
        <button type="submit" class="danger">${t('web.cred.revoke')}</button>
        <a class="button" href="/organization#credentials">${t('web.cred.cancel')}</a>
      </form>
    </section>`,
  });
}
