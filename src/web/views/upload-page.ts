/**
 * The upload page (/orders/new): where the orders go, their title and the files. order-write.js sends
 * each file straight to object storage and creates its order; the messages it shows come from the
 * `data-msg-*` attributes of the form, in the page language.
 */
import type { VisibleProject } from '../../domain/orders/index.js';
import type { Language } from '../../i18n/index.js';
import { html, type SafeHtml } from '../html.js';
import type { WebContext } from '../web-context.js';
import { page } from './layout.js';

export interface UploadView {
  /** Visible projects, sorted as the dashboard sorts them. */
  projects: VisibleProject[];
  isAdmin: boolean;
  maxUploadBytes: number;
}

/** File types the picker offers (the server checks again; the analysis decides on the bytes). */
export const ACCEPT_ATTRIBUTE = '.png,.jpg,.jpeg,.webp,.tif,.tiff,.psd,image/png,image/jpeg,image/webp,image/tiff,image/vnd.adobe.photoshop';

/** A byte count for people: "200 MiB", "97.7 KiB", in the page language's number format. */
export function formatBytes(lang: Language, bytes: number): string {
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${new Intl.NumberFormat(lang, { maximumFractionDigits: unit === 0 ? 0 : 1 }).format(value)} ${units[unit]}`;
}

/** Whether the user may create orders in a project (docs/api.md): organization admin, project admin or editor. */
export function canWriteTo(project: VisibleProject, isAdmin: boolean): boolean {
  return isAdmin || project.userRole === 'admin' || project.userRole === 'editor';
}

/** The JavaScript messages, as data attributes of the element that uses them. */
export function scriptMessages(ctx: WebContext): SafeHtml {
  const t = ctx.t;
  const messages: Record<string, string> = {
    waiting: t('web.upload.waiting'),
    uploading: t('web.upload.uploading'),
    creating: t('web.upload.creating'),
    created: t('web.upload.created'),
    uploaded: t('web.upload.uploaded'),
    remove: t('web.upload.remove', { name: '{name}' }),
    'no-files': t('web.upload.no_files'),
    'no-title': t('web.upload.no_title'),
    done: t('web.upload.done', { created: '{created}', total: '{total}' }),
    'transfer-failed': t('web.upload.transfer_failed', { status: '{status}' }),
    'network-error': t('web.upload.network_error'),
    'server-error': t('web.upload.server_error'),
    'no-message': t('web.respond.no_message'),
    sending: t('web.respond.sending'),
    sent: t('web.respond.sent'),
  };
  return html`${Object.entries(messages).map(([k, v]) => html` data-msg-${k}="${v}"`)}`;
}

function projectSelect(ctx: WebContext, view: UploadView): SafeHtml {
  const t = ctx.t;
  const options = view.projects.map((p) =>
    canWriteTo(p, view.isAdmin)
      ? html`<option value="${p.id}">${p.name}</option>`
      : html`<option value="${p.id}" disabled data-role="${p.userRole}">${t('web.upload.viewer_option', { name: p.name })}</option>`,
  );
  return html`<label for="upload-project">${t('web.upload.project')}</label>
    <select id="upload-project" name="project_id">
      <option value="">${t('web.upload.personal')}</option>
      ${options}
    </select>`;
}

export function uploadPage(ctx: WebContext, view: UploadView): SafeHtml {
  const t = ctx.t;
  const readOnly = view.projects.filter((p) => !canWriteTo(p, view.isAdmin));
  const notice = readOnly.length
    ? html`<div class="message info" data-viewer-notice>${t('web.upload.viewer_notice', { projects: readOnly.map((p) => p.name).join(', ') })}</div>`
    : '';
  return page(ctx, {
    title: t('web.upload.title'),
    active: 'orders',
    scripts: ['order-write.js'],
    body: html`<p><a href="/orders">← ${t('web.order.back')}</a></p>
      <h1>${t('web.upload.title')}</h1>
      <p class="help">${t('web.upload.intro')}</p>
      ${notice}
      <noscript><p class="message warning">${t('web.upload.noscript')}</p></noscript>
      <form id="upload-form" class="panel stacked upload-form" method="post" action="/orders/new" novalidate
        data-csrf="${ctx.session?.csrfToken ?? ''}" data-announce-url="/orders/uploads" data-create-url="/orders/new"${scriptMessages(ctx)}>
        ${projectSelect(ctx, view)}
        <label for="upload-title">${t('web.upload.order_title')}</label>
        <input id="upload-title" name="order_title" maxlength="1000" required aria-describedby="upload-title-help">
        <p class="help" id="upload-title-help">${t('web.upload.title_help')}</p>
        <label for="upload-files">${t('web.upload.files')}</label>
        <div class="dropzone" data-dropzone>
          <p class="dropzone-text">${t('web.upload.drop')}</p>
          <input type="file" id="upload-files" multiple accept="${ACCEPT_ATTRIBUTE}" aria-describedby="upload-formats">
          <p class="help" id="upload-formats">${t('web.upload.formats', { limit: formatBytes(ctx.lang, view.maxUploadBytes) })}</p>
        </div>
        <ul class="upload-list" data-upload-list aria-live="polite"></ul>
        <p class="message error" data-form-error role="alert" hidden></p>
        <button type="submit" class="primary">${t('web.upload.submit')}</button>
        <p data-upload-summary role="status"></p>
      </form>`,
  });
}
