/**
 * The strict Content-Security-Policy of the web application (docs/web.md, "Browser code and the CSP"):
 * every page is served with `script-src 'self'` and holds no inline script, event handler or
 * `javascript:` URL (a crawl of every page an administrator and a visitor can reach, in process), and in
 * real Chromium the pages run their bundles with no violation reported, while an inline script is
 * refused (which shows the listener would have caught one).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import type { DatabaseHandle } from '../../src/storage/database.js';
import { launchChromium } from '../helpers/chromium.js';
import { openTestPglite } from '../helpers/database.js';
import { loadStandardFixture, TINY_PNG_BASE64, USERS } from '../helpers/fixtures.js';
import { freePort } from '../helpers/free-port.js';
import { auditHtmlResponse, directive } from '../helpers/page-audit.js';
import { buildWebApp, CookieJar, csrfFieldOf, form, FORM_HEADERS, signIn } from './web-test-helpers.js';

/** Visits per page shape (`/orders/:id`): enough to see each template with different data. */
const PER_SHAPE = 3;
const MAX_PAGES = 120;

describe('strict Content-Security-Policy', () => {
  let handle: DatabaseHandle;
  let app: FastifyInstance;
  let base: string;
  let browser: Browser;
  const contexts: BrowserContext[] = [];

  before(async () => {
    handle = await openTestPglite();
    const { storage } = await loadStandardFixture(handle);
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    app = await buildWebApp(handle, storage, { port, publicBaseUrl: base, issuerUrl: base, tokenAudience: `${base}/v1` });
    await app.listen({ host: '127.0.0.1', port });
    browser = await launchChromium();
  });

  after(async () => {
    for (const c of contexts) await c.close();
    await browser?.close();
    await app?.close();
    await handle?.close();
  });

  /** GETs a page with `jar`'s cookies and audits it; returns its body. */
  async function visit(url: string, jar: CookieJar | null): Promise<{ status: number; body: string }> {
    const res = await app.inject({ method: 'GET', url, headers: jar ? { cookie: jar.header() } : {} });
    assert.ok(res.statusCode < 500, `${url} answered ${res.statusCode}`);
    if (String(res.headers['content-type']).startsWith('text/html')) {
      auditHtmlResponse(res, url);
      const csp = String(res.headers['content-security-policy']);
      if (!url.startsWith('/docs')) {
        // The verify pages alone may compile the C2PA WebAssembly this origin serves (no JS eval).
        const scriptSrc = /^\/verify(\/|$|\?)/.test(url) ? ["'self'", "'wasm-unsafe-eval'"] : ["'self'"];
        assert.deepEqual(directive(csp, 'script-src'), scriptSrc, `${url}: ${csp}`);
        assert.deepEqual(directive(csp, 'default-src'), ["'none'"], `${url}: ${csp}`);
      }
    }
    return { status: res.statusCode, body: res.body };
  }

  /** Every page reachable by links from `start`, each page shape at most PER_SHAPE times. */
  async function crawl(start: string[], jar: CookieJar | null): Promise<string[]> {
    const queue = [...start];
    const seen = new Set(queue);
    const perShape = new Map<string, number>();
    const visited: string[] = [];
    while (queue.length > 0 && visited.length < MAX_PAGES) {
      const url = queue.shift()!;
      const shape = new URL(url, base).pathname.replace(/\/[^/]*\d[^/]*/g, '/:id');
      if ((perShape.get(shape) ?? 0) >= PER_SHAPE) continue;
      perShape.set(shape, (perShape.get(shape) ?? 0) + 1);
      const { status, body } = await visit(url, jar);
      visited.push(`${status} ${url}`);
      if (status >= 300) continue;
      for (const m of body.matchAll(/href="(\/[^"]*)"/g)) {
        const link = m[1]!.replaceAll('&amp;', '&');
        if (link.startsWith('/static/') || link.startsWith('//') || seen.has(link)) continue;
        seen.add(link);
        queue.push(link);
      }
    }
    return visited;
  }

  test('every page a signed-in administrator reaches is served with script-src \'self\' and no inline code', async () => {
    const { jar } = await signIn(app, USERS.admin.email, USERS.admin.password);
    const visited = await crawl(['/', '/orders', '/orders/new', '/projects', '/organization', '/docs/'], jar);
    // The crawl reached the application's pages, not just the start list.
    assert.ok(visited.length >= 15, visited.join('\n'));
    for (const page of ['/orders', '/orders/new', '/projects', '/organization', '/docs/']) assert.ok(visited.includes(`200 ${page}`), `${page} in\n${visited.join('\n')}`);
    assert.ok(visited.some((v) => /^200 \/orders\/[^/?]+$/.test(v) && !v.endsWith('/orders/new')), 'an order page was audited');
  });

  test('pages without a session, error pages and the CSRF refusal are strict too', async () => {
    const visited = await crawl(['/sign-in', '/sign-in?lang=fr', '/no-such-page', '/orders/no-such-order'], null);
    assert.ok(visited.some((v) => v.startsWith('200 /sign-in')));
    assert.ok(visited.some((v) => v.startsWith('404 /no-such-page')));
    const { jar } = await signIn(app, USERS.admin.email, USERS.admin.password);
    await visit('/orders/no-such-order', jar);
    const signInPage = await app.inject({ url: '/sign-in' });
    const forged = await app.inject({
      method: 'POST',
      url: '/sign-in',
      headers: { ...FORM_HEADERS, cookie: jar.header() },
      payload: form({ _csrf: `${csrfFieldOf(signInPage.body)}x`, email: USERS.admin.email, password: USERS.admin.password }),
    });
    assert.equal(forged.statusCode, 403);
    auditHtmlResponse(forged, 'POST /sign-in with a forged CSRF token');
  });

  /** A page that records every CSP violation and console report (the recorder runs outside the CSP). */
  async function watchedPage(): Promise<{ page: Page; reports: string[]; scripts: string[] }> {
    const context = await browser.newContext({ baseURL: base, locale: 'en-US' });
    contexts.push(context);
    await context.addInitScript(() => {
      document.addEventListener('securitypolicyviolation', (e) => {
        console.error(`securitypolicyviolation: ${e.violatedDirective} blocked ${e.blockedURI || 'inline'} in ${e.documentURI}`);
      });
    });
    const page = await context.newPage();
    const reports: string[] = [];
    const scripts: string[] = [];
    page.on('console', (m) => {
      if (m.type() === 'error' || /Content Security Policy|Refused to/i.test(m.text())) reports.push(`${page.url()}: ${m.text()}`);
    });
    page.on('pageerror', (e) => reports.push(`${page.url()}: ${e.message}`));
    page.on('response', (r) => {
      if (new URL(r.url()).pathname.endsWith('.js')) scripts.push(`${r.status()} ${r.headers()['content-type']} ${new URL(r.url()).pathname}`);
    });
    return { page, reports, scripts };
  }

  test('in Chromium the pages run their bundles with no CSP violation reported', async () => {
    const { page, reports, scripts } = await watchedPage();
    await page.goto('/sign-in');
    await page.getByLabel('E-mail').fill(USERS.admin.email);
    await page.getByLabel('Password').fill(USERS.admin.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForLoadState('load');

    // order-write.js runs on the upload page: a chosen file becomes a row of the list (no upload yet).
    await page.goto('/orders/new');
    await page.locator('input[type="file"]').setInputFiles({ name: 'tiny.png', mimeType: 'image/png', buffer: Buffer.from(TINY_PNG_BASE64, 'base64') });
    await page.locator('li.upload-item[data-file-name="tiny.png"]').waitFor();

    // app.js runs on the order page: focusing an annotation shape shows its details.
    await page.goto('/orders');
    const orderLinks = await page.locator('a[href^="/orders/"]').evaluateAll((links) => links.map((a) => a.getAttribute('href')!));
    let annotated = false;
    for (const href of orderLinks.filter((h) => h !== '/orders/new').slice(0, 20)) {
      await page.goto(href);
      if ((await page.locator('.overlay-stage .annotation').count()) === 0) continue;
      await page.locator('.overlay-stage .annotation').first().focus();
      await page.locator('.annotation-tip:not([hidden])').first().waitFor();
      annotated = true;
      break;
    }
    assert.ok(annotated, 'an annotated order page was found among the first orders');

    assert.ok(scripts.some((s) => /^200 text\/javascript.* \/static\/app\.js$/.test(s)), scripts.join('\n'));
    assert.ok(scripts.some((s) => /^200 text\/javascript.* \/static\/order-write\.js$/.test(s)), scripts.join('\n'));
    assert.deepEqual(reports, []);
  });

  test('in Chromium an inline script is refused and reported (the check above can see a violation)', async () => {
    const { page, reports } = await watchedPage();
    await page.goto('/sign-in');
    await page.evaluate(() => {
      const script = document.createElement('script');
      script.textContent = 'document.documentElement.setAttribute("data-inline-ran", "yes")';
      document.body.append(script);
      const button = document.createElement('button');
      button.setAttribute('onclick', 'document.documentElement.setAttribute("data-inline-ran", "yes")');
      document.body.append(button);
      button.click();
    });
    const deadline = Date.now() + 30_000;
    while (reports.filter((r) => r.includes('securitypolicyviolation')).length < 2 && Date.now() < deadline) await page.waitForTimeout(50);
    assert.equal(await page.evaluate(() => document.documentElement.getAttribute('data-inline-ran')), null, 'no inline code ran');
    assert.ok(reports.some((r) => /securitypolicyviolation: script-src-elem blocked inline/.test(r)), reports.join('\n'));
    assert.ok(reports.some((r) => /securitypolicyviolation: script-src-attr blocked inline/.test(r)), reports.join('\n'));
  });
});
