/** The sign-in form. */
import { html, type SafeHtml } from '../html.js';
import { CSRF_FIELD } from '../session/csrf.js';
import type { WebContext } from '../web-context.js';
import { page } from './layout.js';

export interface SignInView {
  csrfToken: string;
  email?: string;
  next?: string;
  error?: string | null;
  notice?: string | null;
}

export function signInPage(ctx: WebContext, view: SignInView): SafeHtml {
  const error = view.error
    ? html`<p class="message error" role="alert" id="sign-in-error">${view.error}</p>`
    : '';
  const notice = view.notice ? html`<p class="message info" role="status">${view.notice}</p>` : '';
  return page(ctx, {
    title: ctx.t('web.sign_in.title'),
    languageBase: view.next ? `/sign-in?next=${encodeURIComponent(view.next)}` : '/sign-in',
    body: html`<section class="panel narrow">
      <h1>${ctx.t('web.sign_in.title')}</h1>
      <p>${ctx.t('web.sign_in.intro')}</p>
      ${notice}${error}
      <form method="post" action="/sign-in" class="stacked" novalidate>
        <input type="hidden" name="${CSRF_FIELD}" value="${view.csrfToken}">
        ${view.next ? html`<input type="hidden" name="next" value="${view.next}">` : ''}
        <label for="email">${ctx.t('web.sign_in.email')}</label>
        <input id="email" name="email" type="email" autocomplete="username" required value="${view.email ?? ''}"
          ${view.error ? html`aria-describedby="sign-in-error" aria-invalid="true"` : ''} ${view.email ? '' : html`autofocus`}>
        <label for="password">${ctx.t('web.sign_in.password')}</label>
        <input id="password" name="password" type="password" autocomplete="current-password" required ${view.email ? html`autofocus` : ''}>
        <button type="submit" class="primary">${ctx.t('web.sign_in.submit')}</button>
      </form>
    </section>`,
  });
}
