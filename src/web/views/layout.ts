/** The page frame: `lang`, skip link, navigation, language switch, sign-out form, one CSS and one JS file. */
import { catalogues, LANGUAGES, type Language } from '../../i18n/index.js';
import { html, type HtmlValue, type SafeHtml } from '../html.js';
import { CSRF_FIELD } from '../session/csrf.js';
import type { WebContext } from '../web-context.js';
import { assetUrl } from '../static-assets.js';

export type NavArea = 'orders' | 'projects' | 'organization' | 'review' | null;

export interface PageOptions {
  title: string;
  body: HtmlValue;
  active?: NavArea;
  /** Path the language links point at (default: the current URL); pages answering a POST name a GET page. */
  languageBase?: string;
  /** Further browser bundles this page needs (`<name>.js` of src/web/client/<name>.ts), after app.js. */
  scripts?: readonly string[];
}

/** The current URL with `lang` set, so switching language keeps the filter and page. */
export function languageHref(base: string, lang: Language): string {
  const url = new URL(base, 'http://x');
  url.searchParams.set('lang', lang);
  return `${url.pathname}${url.search}`;
}

function languageSwitch(ctx: WebContext, base: string): SafeHtml {
  const links = LANGUAGES.map((l) => {
    const name = catalogues[l]['web.language_name'];
    return html`<li><a href="${languageHref(base, l)}" lang="${l}" hreflang="${l}" ${l === ctx.lang ? html`aria-current="true"` : ''}>${name}</a></li>`;
  });
  return html`<nav class="languages" aria-label="${ctx.t('web.nav.language')}"><ul>${links}</ul></nav>`;
}

function navigation(ctx: WebContext, active: NavArea): SafeHtml {
  if (!ctx.session) return html``;
  const item = (area: Exclude<NavArea, null>, href: string, label: string) =>
    html`<li><a href="${href}" ${active === area ? html`aria-current="page"` : ''}>${label}</a></li>`;
  return html`<nav class="main-nav" aria-label="${ctx.t('web.nav.label')}"><ul>
      ${item('orders', '/orders', ctx.t('web.nav.orders'))}
      ${item('projects', '/projects', ctx.t('web.nav.projects'))}
      ${item('organization', '/organization', ctx.t('web.nav.organization'))}
      ${ctx.session.isReviewer ? item('review', '/review', ctx.t('web.nav.review')) : ''}
    </ul></nav>
    <div class="account">
      <span class="who">${ctx.t('web.nav.signed_in_as', { email: ctx.session.email })}</span>
      <form method="post" action="/sign-out" class="inline">
        <input type="hidden" name="${CSRF_FIELD}" value="${ctx.session.csrfToken}">
        <button type="submit" class="link-button">${ctx.t('web.nav.sign_out')}</button>
      </form>
    </div>`;
}

/** A whole HTML document. */
export function page(ctx: WebContext, options: PageOptions): SafeHtml {
  return html`<!doctype html>
<html lang="${ctx.lang}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${options.title} · ${ctx.t('web.app_name')}</title>
<link rel="icon" type="image/svg+xml" href="${assetUrl('favicon.svg')}">
<link rel="stylesheet" href="${assetUrl('app.css')}">
<script src="${assetUrl('app.js')}" defer></script>
${(options.scripts ?? []).map((name) => html`<script src="${assetUrl(name)}" defer></script>
`)}</head>
<body>
<a class="skip-link" href="#main">${ctx.t('web.nav.skip')}</a>
<header class="site-header">
  <a class="brand" href="/">${ctx.t('web.app_name')}</a>
  ${navigation(ctx, options.active ?? null)}
  ${languageSwitch(ctx, options.languageBase ?? ctx.url)}
</header>
<main id="main" tabindex="-1">
${options.body}
</main>
</body>
</html>`;
}

/** A copy button for the text of the element with id `targetId` (app.js does the copying). */
export function copyButton(ctx: WebContext, targetId: string, label: string): SafeHtml {
  return html`<button type="button" class="copy" data-copy-target="${targetId}" data-copied-label="${ctx.t('web.copied')}" aria-label="${ctx.t('web.copy')}: ${label}">${ctx.t('web.copy')}</button>`;
}
