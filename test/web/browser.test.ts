/**
 * The web application in real headless Chromium against the real app listening on 127.0.0.1, over an
 * in-memory PGlite with the standard fixture. Every page is photographed to test-output/screenshots.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { promisify } from 'node:util';
import type { FastifyInstance } from 'fastify';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import type { DatabaseHandle } from '../../src/storage/database.js';
import { openTestPglite } from '../helpers/database.js';
import { ACME, loadStandardFixture, USERS, type FixtureUser, removeTemporaryObjectStorages } from '../helpers/fixtures.js';
import { buildWebApp } from './web-test-helpers.js';
import { freePort } from '../helpers/free-port.js';
import { assertDrawsJapanese, drawnCharacters, launchChromium } from '../helpers/chromium.js';

const SCREENSHOTS = path.resolve('test-output/screenshots');
const run = promisify(execFile);


describe('web application in Chromium', () => {
  let handle: DatabaseHandle;
  let app: FastifyInstance;
  let browser: Browser;
  let base: string;
  const contexts: BrowserContext[] = [];
  const consoleErrors: string[] = [];

  before(async () => {
    mkdirSync(SCREENSHOTS, { recursive: true });
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

  async function newPage(locale = 'en-US', viewport = { width: 1280, height: 900 }): Promise<Page> {
    const context = await browser.newContext({ baseURL: base, locale, viewport });
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: base });
    contexts.push(context);
    const page = await context.newPage();
    page.on('console', (m) => {
      if (m.type() === 'error') consoleErrors.push(`${page.url()}: ${m.text()}`);
    });
    page.on('pageerror', (e) => consoleErrors.push(`${page.url()}: ${e.message}`));
    return page;
  }

  async function shoot(page: Page, name: string): Promise<void> {
    await page.screenshot({ path: path.join(SCREENSHOTS, `${name}.png`), fullPage: true });
  }

  async function signIn(page: Page, user: FixtureUser, password = user.password): Promise<void> {
    await page.goto('/sign-in');
    await page.getByLabel('E-mail').fill(user.email);
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForLoadState('load');
  }

  async function token(clientId: string, clientSecret: string): Promise<Response> {
    return fetch(`${base}/oauth2/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'client_credentials', client_id: clientId, client_secret: clientSecret }),
    });
  }

  async function apiGet(path_: string, accessToken: string): Promise<{ status: number; body: any }> {
    const res = await fetch(`${base}${path_}`, { headers: { authorization: `Bearer ${accessToken}` } });
    return { status: res.status, body: await res.json() };
  }

  async function adminToken(): Promise<string> {
    const res = await token(USERS.admin.clientId, USERS.admin.clientSecret);
    assert.equal(res.status, 200);
    return ((await res.json()) as { access_token: string }).access_token;
  }

  let admin: Page;

  test('the language switcher\'s 日本語 is drawn with a Japanese font, not as boxes (screenshots show it)', async () => {
    const page = await newPage();
    await page.goto('/sign-in');
    await assertDrawsJapanese(page);
    // The check itself: two characters no font has come out as the same box, so equal drawings do mean boxes.
    const [first, second] = await drawnCharacters(page, ['\u{10FFFD}', '\u{10FFFC}']);
    assert.equal(first, second, 'unassigned characters are drawn as one and the same box');
    await shoot(page, 'sign-in-language-switcher');
  });

  test('an administrator signs in and reads the organization id', async () => {
    admin = await newPage();
    await admin.goto('/sign-in');
    await shoot(admin, 'sign-in');
    await signIn(admin, USERS.admin);
    assert.equal(new URL(admin.url()).pathname, '/orders');
    await admin.getByRole('link', { name: 'Organization' }).click();
    assert.equal(await admin.locator('html').getAttribute('lang'), 'en');
    assert.equal((await admin.locator('#organization-id').textContent())?.trim(), ACME.id);
    await admin.getByRole('button', { name: `Copy: Organization ID` }).click();
    await admin.getByRole('button', { name: 'Copied' }).waitFor();
    assert.equal(await admin.evaluate(() => navigator.clipboard.readText()), ACME.id);
    const admins = await admin.locator('[data-members="admins-title"] li').allTextContents();
    const others = await admin.locator('[data-members="members-title"] li').allTextContents();
    assert.equal(admins.length, 1);
    assert.match(admins[0]!, /admin@acme\.test/);
    assert.equal(others.length, 3);
    await shoot(admin, 'organization');
  });

  test('a credential is created, used for a token and the orders API, then revoked', async () => {
    await admin.goto('/organization');
    await admin.getByLabel('Name').fill('Nightly export');
    await admin.getByLabel(/Write/).check();
    await admin.getByRole('button', { name: 'Create credential' }).click();
    await admin.getByRole('heading', { name: 'Credential Nightly export created' }).waitFor();
    const clientId = (await admin.locator('#client-id').textContent())!.trim();
    const clientSecret = (await admin.locator('#client-secret').textContent())!.trim();
    assert.match(clientId, /^cd_/);
    assert.match(clientSecret, /^cds_[A-Za-z0-9_-]{43}$/);
    const curl = (await admin.locator('#curl-example').textContent())!.split('\n');
    assert.equal(curl.length, 2, 'two lines: get a token, call the API');
    assert.ok(curl[0]!.startsWith('TOKEN=$(curl -s -u ') && curl[0]!.includes(`${base}/oauth2/token`));
    assert.ok(curl[1]!.startsWith('curl -s -H "Authorization: Bearer $TOKEN" '));
    const snippet = await admin.locator('pre:has(#curl-example)').evaluate((el) => ({ scroll: el.scrollWidth, width: el.clientWidth }));
    assert.ok(snippet.scroll <= snippet.width, `the snippet wraps inside its box, no hidden end of line (${snippet.scroll} > ${snippet.width} px)`);
    // Pasted into a shell as shown, the two lines get a token and list the orders.
    const pasted = await run('bash', ['-e', '-o', 'pipefail', '-c', curl.join('\n')], { timeout: 30_000 });
    assert.equal(JSON.parse(pasted.stdout).order_stats.total_orders, 40, pasted.stdout);
    await shoot(admin, 'credential-created');
    // Post/redirect/get: a reload neither re-posts the form nor shows the secret again.
    assert.match(new URL(admin.url()).pathname, /^\/organization\/credentials\/created\//);
    await admin.reload();
    assert.equal(new URL(admin.url()).pathname, '/organization');
    assert.ok(!(await admin.content()).includes(clientSecret), 'the secret is not shown after a reload');
    assert.equal(await admin.locator('tr[data-client-id]', { hasText: 'Nightly export' }).count(), 1, 'one credential after the reload');
    await shoot(admin, 'credential-created-reloaded');

    const issued = await token(clientId, clientSecret);
    assert.equal(issued.status, 200);
    const { access_token: accessToken, token_type: tokenType } = (await issued.json()) as { access_token: string; token_type: string };
    assert.equal(tokenType, 'Bearer');
    const orders = await apiGet(`/v1/orders?project_id=${encodeURIComponent('All Projects')}&preview=true`, accessToken);
    assert.equal(orders.status, 200);
    assert.equal(orders.body.order_stats.total_orders, 40);

    await admin.goto('/organization');
    const row = admin.locator(`tr[data-client-id="${clientId}"]`);
    assert.match((await row.textContent())!, /admin@acme\.test/);
    assert.match((await row.textContent())!, /enterprise-api-access\/write/);
    assert.ok(!(await admin.content()).includes(clientSecret), 'the secret is not shown again');
    await row.getByRole('link', { name: 'Revoke Nightly export' }).click();
    await shoot(admin, 'revoke-confirm');
    await admin.getByRole('button', { name: 'Revoke' }).click();
    await admin.getByText('Credential Nightly export was revoked.').waitFor();
    assert.equal(await admin.locator(`tr[data-client-id="${clientId}"]`).count(), 0);
    await shoot(admin, 'organization-after-revoke');

    const refused = await token(clientId, clientSecret);
    assert.equal(refused.status, 401);
    assert.equal(((await refused.json()) as { error: string }).error, 'invalid_client');
  });

  test('the dashboard shows the API’s counts, filters by project and pages with its tokens', async () => {
    const api = await adminToken();
    await admin.goto('/orders');
    const all = await apiGet(`/v1/orders?project_id=${encodeURIComponent('All Projects')}&preview=true&limit=24`, api);
    assert.equal(await admin.locator('[data-state="total"] .count').textContent(), String(all.body.order_stats.total_orders));
    assert.equal(await admin.locator('[data-state="Failed"] .count').textContent(), String(all.body.order_stats.total_failed));
    const firstPageIds = await admin.locator('.card').evaluateAll((cards) => cards.map((c) => c.getAttribute('data-order-id')));
    assert.deepEqual(firstPageIds, all.body.order_previews.map((o: { order_id: string }) => o.order_id));
    await admin.locator('.card img').first().evaluate((img: HTMLImageElement) => img.decode());
    await shoot(admin, 'orders-dashboard');

    await admin.getByRole('link', { name: /Next page/ }).click();
    const secondPageIds = await admin.locator('.card').evaluateAll((cards) => cards.map((c) => c.getAttribute('data-order-id')));
    const next = await apiGet(
      `/v1/orders?project_id=${encodeURIComponent('All Projects')}&preview=true&limit=24&page_token=${encodeURIComponent(all.body.next_page_token)}`,
      api,
    );
    assert.deepEqual(secondPageIds, next.body.order_previews.map((o: { order_id: string }) => o.order_id));
    assert.equal(secondPageIds.length, 16);
    assert.equal(await admin.getByRole('link', { name: /Next page/ }).count(), 0);
    await shoot(admin, 'orders-page-2');

    await admin.getByLabel('Project').selectOption({ label: 'Zeta' });
    await admin.getByRole('button', { name: 'Show' }).click();
    await admin.waitForURL(/project=/);
    assert.equal(new URL(admin.url()).searchParams.get('project'), ACME.projects.zeta.id);
    const zeta = await apiGet(`/v1/orders?project_id=${ACME.projects.zeta.id}&preview=true`, api);
    assert.equal(await admin.locator('[data-state="total"] .count').textContent(), String(zeta.body.order_stats.total_orders));
    const metas = await admin.locator('.card .card-meta').allTextContents();
    assert.equal(metas.length, zeta.body.order_previews.length);
    assert.ok(metas.every((m) => m.startsWith('Zeta')));
    await shoot(admin, 'orders-filter-zeta');

    await admin.getByLabel('Project').selectOption({ label: 'Personal certificates' });
    await admin.getByRole('button', { name: 'Show' }).click();
    await admin.waitForURL(/Personal/);
    const personal = await apiGet(`/v1/orders?project_id=${encodeURIComponent('Personal Certificates')}&preview=true`, api);
    assert.equal(await admin.locator('.card').count(), personal.body.order_previews.length);
  });

  test('the order page draws one shape per annotation where the annotation is', async () => {
    const api = await adminToken();
    const listing = await apiGet(`/v1/orders?project_id=${encodeURIComponent('All Projects')}&limit=1000`, api);
    const order = listing.body.orders.find((o: any) => o.annotations.length >= 2 && o.asset_preview_url);
    assert.ok(order, 'the fixture has an annotated order with a preview');
    await admin.goto(`/orders/${order.order_id}`);
    const img = admin.locator('.overlay-image');
    await img.evaluate((el: HTMLImageElement) => el.decode());
    const box = (await img.boundingBox())!;
    assert.ok(box.width > 100 && box.height > 100);
    const shapes = admin.locator('svg.overlay-shapes .annotation');
    assert.equal(await shapes.count(), order.annotations.length);
    for (let i = 0; i < order.annotations.length; i++) {
      const annotation = order.annotations[i];
      const shape = admin.locator(`.annotation[data-annotation-index="${i}"]`);
      assert.equal(await shape.getAttribute('data-annotation-id'), annotation.id);
      assert.equal(await shape.getAttribute('data-shape'), annotation.target.selector.type);
      assert.equal(await shape.evaluate((el) => el.tagName), annotation.target.selector.type === 'POLYGON' ? 'polygon' : 'rect');
      const geometry = annotation.target.selector.geometry;
      const xs: number[] = geometry.points ? geometry.points.map((p: number[]) => p[0]) : [geometry.bounds.minX, geometry.bounds.maxX];
      const ys: number[] = geometry.points ? geometry.points.map((p: number[]) => p[1]) : [geometry.bounds.minY, geometry.bounds.maxY];
      const expected = {
        x: box.x + Math.min(...xs) * box.width,
        y: box.y + Math.min(...ys) * box.height,
        right: box.x + Math.max(...xs) * box.width,
        bottom: box.y + Math.max(...ys) * box.height,
      };
      const actual = await shape.evaluate((el) => {
        const r = el.getBoundingClientRect();
        return { x: r.left, y: r.top, right: r.right, bottom: r.bottom };
      });
      for (const k of ['x', 'y', 'right', 'bottom'] as const) {
        assert.ok(Math.abs(actual[k] - expected[k]) <= 1.5, `annotation ${i} ${k}: ${actual[k]} vs ${expected[k]}`);
      }
      assert.equal(await shape.getAttribute('data-needs-remediation'), String(annotation.properties.needs_remediation === true));
      assert.equal(await shape.evaluate((el) => el.classList.contains('needs-remediation')), annotation.properties.needs_remediation === true);
    }
    // Keyboard: tabbing to a shape shows its bodies and AI likelihood.
    await admin.locator('.annotation[data-annotation-index="0"]').focus();
    const tip = admin.locator('#annotation-tip-0');
    await tip.waitFor({ state: 'visible' });
    const tipText = (await tip.textContent())!;
    assert.ok(tipText.includes(order.annotations[0].bodies[0].value));
    assert.ok(tipText.includes(String(order.annotations[0].properties.ai_likelihood)));
    await shoot(admin, 'order-overlay-focus');
    // Hover: the other shape's details.
    await admin.locator('.annotation[data-annotation-index="1"]').hover();
    await admin.locator('#annotation-tip-1').waitFor({ state: 'visible' });
    // Every field of the Order is on the page.
    for (const field of ['order_id', 'order_state', 'username', 'ordered_by', 'creation_time', 'project', 'asset_name', 'asset_id', 'asset_last_modified_timestamp', 'confidence', 'remediation', 'tags']) {
      assert.equal(await admin.locator(`[data-field="${field}"]`).count(), 1, field);
    }
    assert.equal(await admin.locator('a[data-layer]').count(), order.layers_info.length);
    const layerHref = await admin.locator('a[data-layer]').first().getAttribute('href');
    const layer = await fetch(layerHref!);
    assert.equal(layer.status, 200);
    assert.equal(layer.headers.get('content-type'), 'image/png');
    await shoot(admin, 'order');
  });

  test('the projects page shows members, roles and detection configuration', async () => {
    await admin.goto('/projects');
    assert.deepEqual(await admin.locator('[data-project-id] h2').allTextContents(), ['beta', 'Écran', 'Zeta']);
    const zeta = admin.locator(`[data-project-id="${ACME.projects.zeta.id}"]`);
    assert.equal(await zeta.locator('tr[data-member="viewer@acme.test"] td').nth(1).textContent(), 'viewer');
    assert.match((await zeta.textContent())!, /weighted_confidence_threshold\s*0\.7/);
    await shoot(admin, 'projects');
  });

  test('a member without admin rights sees neither other projects nor other people’s credentials', async () => {
    const viewer = await newPage();
    await signIn(viewer, USERS.viewer);
    const options = await viewer.locator('#project-filter option').allTextContents();
    assert.deepEqual(options, ['All projects', 'Personal certificates', 'Zeta']);
    const metas = await viewer.locator('.card .card-meta').allTextContents();
    assert.ok(metas.length > 0 && metas.every((m) => m.startsWith('Zeta')), 'only Zeta orders (the viewer has no personal ones)');
    await shoot(viewer, 'viewer-orders');
    const beta = await viewer.goto(`/orders?project=${ACME.projects.beta.id}`);
    assert.equal(beta?.status(), 404);
    const betaOrder = await viewer.goto('/orders/acme-0002');
    assert.equal(betaOrder?.status(), 404);
    await shoot(viewer, 'not-found');
    await viewer.goto('/projects');
    assert.deepEqual(await viewer.locator('[data-project-id] h2').allTextContents(), ['Zeta']);
    await viewer.goto('/organization');
    const clients = await viewer.locator('tr[data-client-id]').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-client-id')));
    assert.deepEqual(clients, ['viewer-client']);
    assert.equal(await viewer.getByLabel(/Write/).isDisabled(), true);
    await shoot(viewer, 'viewer-organization');
  });

  test('a wrong password gets a clear message that does not say whether the e-mail exists', async () => {
    const page = await newPage();
    await signIn(page, USERS.editor, 'wrong-password');
    const alert = page.getByRole('alert');
    assert.equal((await alert.textContent())?.trim(), 'The e-mail or password is incorrect.');
    assert.equal(new URL(page.url()).pathname, '/sign-in');
    await shoot(page, 'sign-in-wrong-password');
    await signIn(page, { ...USERS.editor, email: 'ghost@acme.test' }, 'wrong-password');
    assert.equal((await page.getByRole('alert').textContent())?.trim(), 'The e-mail or password is incorrect.');
  });

  test('the order page\'s failed items fit their box at 1280 and 800 px, no header word broken; the favicon is served', async () => {
    for (const width of [1280, 800]) {
      const page = width === 1280 ? admin : await newPage('en-US', { width, height: 900 });
      if (page !== admin) await signIn(page, USERS.admin);
      await page.goto('/orders/acme-0000');
      const list = page.locator('ol.failed-items');
      await list.waitFor();
      const layout = await list.evaluate((el) => {
        const panel = el.closest('section')!;
        const headers = Array.from(el.querySelectorAll('th')).map((th) => {
          // A word broken across lines has more than one line box.
          const text = th.firstChild!;
          const words = [...(text.textContent ?? '').matchAll(/\S+/g)].map((m) => {
            const range = document.createRange();
            range.setStart(text, m.index!);
            range.setEnd(text, m.index! + m[0].length);
            return { word: m[0], lines: new Set(Array.from(range.getClientRects()).map((r) => Math.round(r.top))).size };
          });
          return { text: th.textContent, words };
        });
        const cells = Array.from(el.querySelectorAll('th, td')).map((c) => c.getBoundingClientRect());
        const box = panel.getBoundingClientRect();
        return {
          scroll: el.scrollWidth,
          width: el.clientWidth,
          headers,
          outside: cells.filter((r) => r.width === 0 || r.left < box.left - 0.5 || r.right > box.right + 0.5).length,
        };
      });
      assert.ok(layout.scroll <= layout.width, `${width} px: items ${layout.scroll} px in a ${layout.width} px box`);
      assert.equal(layout.outside, 0, `${width} px: every field visible inside the panel`);
      assert.deepEqual(new Set(layout.headers.map((h) => h.text)), new Set(['Type', 'Name', 'Storage path', 'AI likelihood', 'Annotations']));
      for (const h of layout.headers) for (const w of h.words) assert.equal(w.lines, 1, `${width} px: "${w.word}" of "${h.text}" broken across lines`);
      await list.scrollIntoViewIfNeeded();
      await shoot(page, `order-failed-items-${width}`);
    }
    const icon = await admin.request.get('/favicon.ico');
    assert.equal(icon.status(), 200);
    assert.equal(icon.headers()['content-type'], 'image/svg+xml');
    assert.equal(await admin.locator('link[rel="icon"]').count(), 1);
  });

  test('/docs shows the API without framework branding and without CSP violations', async () => {
    const docs = await newPage();
    const violations: string[] = [];
    docs.on('console', (m) => {
      if (/Content Security Policy|Refused to/i.test(m.text())) violations.push(m.text());
    });
    const response = await docs.goto('/docs/');
    assert.equal(response?.status(), 200);
    assert.match(String(response?.headers()['content-security-policy']), /script-src 'self'/);
    await docs.getByText('Issue Access Token').first().waitFor();
    await docs.waitForLoadState('networkidle');
    assert.equal(await docs.locator('.topbar').count(), 0, 'no top bar with the framework logo and Explore box');
    await shoot(docs, 'docs');
    assert.deepEqual(violations, []);
  });

  test('a form with a forged CSRF token is refused with a 403 page', async () => {
    await admin.goto('/organization');
    await admin.locator('form.credential-form input[name="_csrf"]').evaluate((el: HTMLInputElement) => {
      el.value = 'forged';
    });
    await admin.getByLabel('Name').fill('forged');
    const [response] = await Promise.all([
      admin.waitForResponse((r) => r.url().endsWith('/organization/credentials') && r.request().method() === 'POST'),
      admin.getByRole('button', { name: 'Create credential' }).click(),
    ]);
    assert.equal(response.status(), 403);
    await admin.getByRole('heading', { name: 'Request refused' }).waitFor();
    await shoot(admin, 'csrf-refused');
  });

  test('the language follows the browser and the switch', async () => {
    const page = await newPage('de-DE');
    await page.goto('/sign-in');
    assert.equal(await page.locator('html').getAttribute('lang'), 'de');
    assert.equal(await page.getByRole('heading', { level: 1 }).textContent(), 'Anmelden');
    await admin.goto('/orders');
    await admin.getByRole('link', { name: '日本語' }).click();
    assert.equal(await admin.locator('html').getAttribute('lang'), 'ja');
    assert.equal(await admin.getByRole('heading', { level: 1 }).textContent(), '注文');
    // The analysis badges in the Japanese catalogue's exact words.
    const analysisBadges = await admin.locator('.card .badge[data-analysis]').evaluateAll((els) => els.map((e) => [e.getAttribute('data-analysis'), e.textContent]));
    assert.ok(analysisBadges.some(([kind]) => kind === 'pass') && analysisBadges.some(([kind]) => kind === 'fail'), JSON.stringify(analysisBadges));
    const inJapanese: Record<string, string> = { pass: '✓ 分析合格', fail: '✗ 分析不合格', none: '分析なし' };
    for (const [kind, text] of analysisBadges) assert.equal(text, inJapanese[kind!], `${kind} badge`);
    await shoot(admin, 'orders-ja');
    await admin.getByRole('link', { name: 'English' }).click();
  });

  test('on a phone-sized screen no page scrolls sideways', async () => {
    const phone = await newPage('en-US', { width: 390, height: 844 });
    await signIn(phone, USERS.editor);
    for (const [url, name] of [
      ['/orders', 'mobile-orders'],
      ['/orders/acme-0000', 'mobile-order'],
      ['/organization', 'mobile-organization'],
      ['/projects', 'mobile-projects'],
    ] as const) {
      const response = await phone.goto(url);
      assert.equal(response?.status(), 200, url);
      const overflow = await phone.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
      assert.ok(overflow <= 0, `${url} overflows by ${overflow}px`);
      await shoot(phone, name);
    }
  });

  test('no page logged a script error or a Content-Security-Policy violation', () => {
    // 401 (wrong password), 403 (CSRF) and 404 pages are expected answers, logged as failed loads.
    const unexpected = consoleErrors.filter((e) => !/status of (401|403|404)/.test(e));
    assert.deepEqual(unexpected, []);
  });
});

// The temporary object storage folders this file made (test/helpers/fixtures.ts).
after(removeTemporaryObjectStorages);
