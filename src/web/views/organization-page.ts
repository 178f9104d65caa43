/** The organization page: name, organization_id, members, and the API credentials the user may manage. */
import { SCOPES } from '../../contract/schemas.js';
import type { WebhookEndpointT } from '../../contract/webhook-schemas.js';
import type { MessageKey } from '../../i18n/index.js';
import { html, type SafeHtml } from '../html.js';
import { CSRF_FIELD } from '../session/csrf.js';
import type { WebContext } from '../web-context.js';
import { timeElement } from './format.js';
import { copyButton, page } from './layout.js';
import { webhooksPanel } from './webhook-pages.js';

export interface MemberView {
  email: string;
  username: string;
}

export interface CredentialView {
  clientId: string;
  name: string;
  createdBy: string;
  scopes: string[];
  createdAt: Date;
  lastUsedAt: Date | null;
}

export interface OrganizationView {
  organizationId: string;
  name: string;
  admins: MemberView[];
  others: MemberView[];
  credentials: CredentialView[];
  /** The organization's webhook endpoints; null for members who are not administrators (no section). */
  webhookEndpoints: WebhookEndpointT[] | null;
  isAdmin: boolean;
  csrfToken: string;
  form?: { name: string; scopes: string[]; errors: Array<MessageKey & `web.${string}`> };
  notice?: string | null;
}

function members(ctx: WebContext, id: string, title: string, list: MemberView[]): SafeHtml {
  return html`<section class="panel" aria-labelledby="${id}"><h2 id="${id}">${title}</h2>
    ${list.length
      ? html`<ul class="members" data-members="${id}">${list.map((m) => html`<li data-email="${m.email}"><strong>${m.username}</strong> <span class="muted">${m.email}</span></li>`)}</ul>`
      : html`<p>${ctx.t('web.none')}</p>`}
  </section>`;
}

function credentialTable(ctx: WebContext, view: OrganizationView): SafeHtml {
  const t = ctx.t;
  if (!view.credentials.length) return html`<p class="empty">${t('web.cred.empty')}</p>`;
  return html`<div class="table-scroll"><table class="data credentials">
    <thead><tr><th scope="col">${t('web.cred.name')}</th><th scope="col">${t('web.cred.client_id')}</th><th scope="col">${t('web.cred.created_by')}</th>
      <th scope="col">${t('web.cred.scopes')}</th><th scope="col">${t('web.cred.created')}</th><th scope="col">${t('web.cred.last_used')}</th>
      <th scope="col"><span class="visually-hidden">${t('web.cred.actions')}</span></th></tr></thead>
    <tbody>${view.credentials.map(
      (c) => html`<tr data-client-id="${c.clientId}">
        <td>${c.name}</td><td><code>${c.clientId}</code></td><td>${c.createdBy}</td>
        <td>${c.scopes.map((s) => html`<code class="scope">${s}</code> `)}</td>
        <td>${timeElement(ctx.lang, c.createdAt)}</td><td>${timeElement(ctx.lang, c.lastUsedAt, t('web.never'))}</td>
        <td><a class="button danger" href="/organization/credentials/${encodeURIComponent(c.clientId)}/revoke" aria-label="${t('web.cred.revoke_named', { name: c.name })}">${t('web.cred.revoke')}</a></td>
      </tr>`,
    )}</tbody></table></div>`;
}

function createForm(ctx: WebContext, view: OrganizationView): SafeHtml {
  const t = ctx.t;
  const form = view.form;
  const checked = (scope: string) => (form ? form.scopes.includes(scope) : scope === SCOPES.read);
  const errors = form?.errors.length
    ? html`<div class="message error" role="alert" id="credential-errors"><ul>${form.errors.map((e) => html`<li>${t(e)}</li>`)}</ul></div>`
    : '';
  return html`<form method="post" action="/organization/credentials" class="stacked credential-form" novalidate>
    <h3>${t('web.cred.new')}</h3>
    ${errors}
    <input type="hidden" name="${CSRF_FIELD}" value="${view.csrfToken}">
    <label for="credential-name">${t('web.cred.name')}</label>
    <input id="credential-name" name="name" maxlength="100" required value="${form?.name ?? ''}" aria-describedby="credential-name-help${form?.errors.length ? ' credential-errors' : ''}">
    <p class="help" id="credential-name-help">${t('web.cred.name_help')}</p>
    <fieldset>
      <legend>${t('web.cred.scopes')}</legend>
      <label class="check"><input type="checkbox" name="scopes" value="${SCOPES.read}" ${checked(SCOPES.read) ? html`checked` : ''}> ${t('web.cred.scope_read')} <code>${SCOPES.read}</code></label>
      <label class="check"><input type="checkbox" name="scopes" value="${SCOPES.write}" ${checked(SCOPES.write) ? html`checked` : ''} ${view.isAdmin ? '' : html`disabled aria-describedby="write-help"`}> ${t('web.cred.scope_write')} <code>${SCOPES.write}</code></label>
      ${view.isAdmin ? '' : html`<p class="help" id="write-help">${t('web.cred.write_admin_only')}</p>`}
    </fieldset>
    <button type="submit" class="primary">${t('web.cred.create')}</button>
  </form>`;
}

export function organizationPage(ctx: WebContext, view: OrganizationView): SafeHtml {
  const t = ctx.t;
  return page(ctx, {
    title: t('web.org.title'),
    active: 'organization',
    languageBase: '/organization',
    body: html`<h1>${view.name}</h1>
      ${view.notice ? html`<p class="message info" role="status">${view.notice}</p>` : ''}
      <section class="panel" aria-labelledby="org-id-title">
        <h2 id="org-id-title">${t('web.org.id')}</h2>
        <p class="copy-row"><code id="organization-id" class="secret-value">${view.organizationId}</code> ${copyButton(ctx, 'organization-id', t('web.org.id'))}</p>
        <p class="help">${t('web.org.id_help')}</p>
      </section>
      <div class="two-columns">
        ${members(ctx, 'admins-title', t('web.org.admins'), view.admins)}
        ${members(ctx, 'members-title', t('web.org.members'), view.others)}
      </div>
      <section class="panel" aria-labelledby="credentials-title" id="credentials">
        <h2 id="credentials-title">${t('web.cred.title')}</h2>
        <p>${view.isAdmin ? t('web.cred.intro_admin') : t('web.cred.intro_member')}</p>
        ${credentialTable(ctx, view)}
        ${createForm(ctx, view)}
      </section>
      ${view.webhookEndpoints ? webhooksPanel(ctx, view.webhookEndpoints) : ''}`,
  });
}
