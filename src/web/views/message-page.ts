/** Pages that only say something: errors (403, 404, 429, 500) and confirmations. */
import { html, type HtmlValue, type SafeHtml } from '../html.js';
import type { WebContext } from '../web-context.js';
import { page } from './layout.js';

export function messagePage(ctx: WebContext, title: string, message: HtmlValue, role: 'alert' | 'status' = 'alert'): SafeHtml {
  const home = ctx.session ? html`<p><a href="/orders">${ctx.t('web.error.home')}</a></p>` : html`<p><a href="/sign-in">${ctx.t('web.sign_in.title')}</a></p>`;
  return page(ctx, {
    title,
    body: html`<section class="panel narrow">
      <h1>${title}</h1>
      <p role="${role}">${message}</p>
      ${home}
    </section>`,
  });
}
