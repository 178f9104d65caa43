/** The projects the user sees, with members, roles and detection configuration (as GET /v1/projects). */
import type { ProjectT } from '../../contract/schemas.js';
import { html, type SafeHtml } from '../html.js';
import type { WebContext } from '../web-context.js';
import { timeElement } from './format.js';
import { page } from './layout.js';
import { ordersHref } from './orders-page.js';

function project(ctx: WebContext, p: ProjectT): SafeHtml {
  const t = ctx.t;
  const id = `project-${p.id}`;
  const members = p.members.length
    ? html`<table class="data"><thead><tr><th scope="col">${t('web.projects.email')}</th><th scope="col">${t('web.projects.role')}</th></tr></thead>
        <tbody>${p.members.map((m) => html`<tr data-member="${m.email}"><td>${m.email}</td><td>${m.role}</td></tr>`)}</tbody></table>`
    : html`<p>${t('web.projects.no_members')}</p>`;
  // Field names are data (the API's names), shown as they are.
  const config = Object.entries(p.detection_config).map(([k, v]) => html`<div class="field"><dt><code>${k}</code></dt><dd>${v}</dd></div>`);
  return html`<section class="panel" aria-labelledby="${id}" data-project-id="${p.id}">
    <h2 id="${id}">${p.name}</h2>
    <dl class="fields">
      <div class="field"><dt>ID</dt><dd><code>${p.id}</code></dd></div>
      <div class="field"><dt>${t('web.projects.created')}</dt><dd>${timeElement(ctx.lang, p.date_created)}</dd></div>
    </dl>
    <h3>${t('web.projects.members')}</h3>
    ${members}
    <h3>${t('web.projects.detection_config')}</h3>
    <dl class="fields config">${config}</dl>
    <p><a href="${ordersHref(p.id)}">${t('web.projects.orders')}</a></p>
  </section>`;
}

export function projectsPage(ctx: WebContext, projects: ProjectT[]): SafeHtml {
  return page(ctx, {
    title: ctx.t('web.projects.title'),
    active: 'projects',
    body: html`<h1>${ctx.t('web.projects.title')}</h1>
      ${projects.length ? html`<div class="project-grid">${projects.map((p) => project(ctx, p))}</div>` : html`<p class="empty">${ctx.t('web.projects.empty')}</p>`}`,
  });
}
