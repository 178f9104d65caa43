/**
 * The review page's editor in real headless Chromium against the real app (docs/review.md): a reviewer of a
 * certifier organization opens a customer's order, draws a rectangle with the mouse, types a `<script>`
 * payload as its body and saves: the API's `annotations` show it at once, verbatim. The keyboard moves it
 * (saved with Ctrl+S); a decision shortcut only moves focus; a Note and `Certify` make the order
 * `Human Certified` with its certificate. No inline script runs (strict CSP), no page error.
 * Runs on PGlite, and on PostgreSQL when TEST_DATABASE_URL is set.
 */
import assert from 'node:assert/strict';
import { mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { after, before, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { drawPreview } from '../../src/demo/index.js';
import { grantReviewer } from '../../src/domain/review/reviewer-admin.js';
import { loadSeed } from '../../src/domain/seed/seed.js';
import { buildTestApp } from '../helpers/app.js';
import { launchChromium } from '../helpers/chromium.js';
import { describeOnEachDatabase } from '../helpers/database.js';
import { temporaryObjectStorage } from '../helpers/fixtures.js';
import { freePort } from '../helpers/free-port.js';
import { apiTestConfig, obtainToken } from '../http/api-harness.js';
import { CLIENT, CUSTOMER_ORG, PASSWORD, PEOPLE, reviewSeed } from '../review/review-world.js';

const SCREENSHOTS = path.resolve('test-output/screenshots');
const WAIT = { timeout: 30_000 };
const PAYLOAD = '<script>window.__pwned = 1</script><img src=x onerror="window.__pwned = 2">';

interface ApiAnnotation {
  id: string;
  bodies: Array<{ value: string }>;
  target: { selector: { type: string; geometry: { bounds: { minX: number; minY: number; maxX: number; maxY: number }; x: number; y: number; w: number; h: number } } };
}

describeOnEachDatabase('review editor in Chromium', (getDb) => {
  let app: FastifyInstance;
  let browser: Browser;
  let base: string;
  let dir: string;
  let token: string;
  const contexts: BrowserContext[] = [];
  const pageErrors: string[] = [];
  const orderId = 'q0';

  before(async () => {
    mkdirSync(SCREENSHOTS, { recursive: true });
    const temp = temporaryObjectStorage();
    dir = temp.dir;
    // q0 is a layered file: one PSD layer rendered as a PNG, as the analysis stores them.
    const seed = reviewSeed(1);
    const layerKey = `orgs/${CUSTOMER_ORG}/layers/q0-ink.png`;
    seed.organizations[0]!.orders![0]!.layers = [{ layer_name: 'Ink <layer>', key: layerKey }];
    seed.objects = [...(seed.objects ?? []), { key: layerKey, content_type: 'image/png', content_base64: drawPreview(12, 480, 320).toString('base64') }];
    await loadSeed(getDb().db, temp.storage, seed);
    await grantReviewer(getDb().db, PEOPLE.rita.email);
    // A real picture, and the order's asset is that file (as if uploaded through the API), so Certify can hash it.
    const previewKey = (await getDb().db.selectFrom('orders').select('asset_preview_key').where('order_id', '=', orderId).executeTakeFirstOrThrow()).asset_preview_key!;
    await temp.storage.put(previewKey, drawPreview(11, 480, 320), 'image/png');
    await getDb().db.updateTable('orders').set((eb) => ({ asset_key: eb.ref('asset_preview_key'), asset_content_type: 'image/png' })).execute();
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    app = await buildTestApp({ config: { ...apiTestConfig(dir), publicBaseUrl: base, issuerUrl: base, tokenAudience: `${base}/v1` }, database: getDb(), storage: temp.storage });
    await app.listen({ host: '127.0.0.1', port });
    token = await obtainToken(app, CLIENT.id, CLIENT.secret);
    browser = await launchChromium();
  });

  after(async () => {
    for (const c of contexts) await c.close();
    await browser?.close();
    await app?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  async function newPage(): Promise<Page> {
    const context = await browser.newContext({ baseURL: base, locale: 'en-US', viewport: { width: 1280, height: 1000 } });
    contexts.push(context);
    const page = await context.newPage();
    page.on('pageerror', (e) => pageErrors.push(`${page.url()}: ${e.message}`));
    page.on('console', (m) => {
      if (m.type() === 'error' && /Content Security Policy|Refused/.test(m.text())) pageErrors.push(`${page.url()}: ${m.text()}`);
    });
    return page;
  }

  async function apiAnnotations(): Promise<ApiAnnotation[]> {
    const res = await fetch(`${base}/v1/orders/${orderId}`, { headers: { authorization: `Bearer ${token}` } });
    assert.equal(res.status, 200);
    return ((await res.json()) as { annotations: ApiAnnotation[] }).annotations;
  }

  /** Waits until the editor reports the n-th successful save. */
  async function savedTimes(page: Page, n: number): Promise<void> {
    await page.locator(`[data-review-root][data-editor-saved="${n}"]`).waitFor({ state: 'attached', ...WAIT });
  }

  it('draws, edits, saves (API at once, verbatim), moves by keyboard, then certifies with a note', async () => {
    const page = await newPage();
    await page.goto('/sign-in?lang=en');
    await page.getByLabel('E-mail').fill(PEOPLE.rita.email);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForLoadState('load');

    await page.goto(`/review/orders/${orderId}`);
    await page.locator('[data-editor-ready]').waitFor(WAIT);
    // The preview is there, large: loaded, and at least 600 px wide in a 1280 px window.
    await page.waitForFunction(() => {
      const img = document.querySelector<HTMLImageElement>('.editor-image');
      return img !== null && img.complete && img.naturalWidth > 0;
    }, undefined, WAIT).catch(async (err: unknown) => {
      const src = await page.locator('.editor-image').getAttribute('src');
      throw new Error(`preview did not load from ${src}: ${String(err)}`);
    });
    assert.ok((await page.locator('.editor-image').boundingBox())!.width >= 600, 'the preview is large');
    const before = (await apiAnnotations()).length;
    const existing = await page.locator('[data-editor-overlay] .annotation').count();
    assert.equal(existing, before, 'the editor draws every annotation the order has');
    // Each layer is switchable: off at first, on over the picture with its checkbox; the preview too.
    const layer = page.locator('[data-layer-image="Ink <layer>"]');
    assert.equal(await layer.isVisible(), false);
    await page.getByLabel('Ink <layer>').check();
    await layer.waitFor({ state: 'visible', ...WAIT });
    await page.waitForFunction(() => (document.querySelector<HTMLImageElement>('[data-layer-image]')?.naturalWidth ?? 0) > 0, undefined, WAIT);
    await page.getByLabel('Preview', { exact: true }).uncheck();
    assert.equal(await page.locator('.editor-image').evaluate((e) => getComputedStyle(e).visibility), 'hidden');
    await page.getByLabel('Preview', { exact: true }).check();
    await page.getByLabel('Ink <layer>').uncheck();
    await layer.waitFor({ state: 'hidden', ...WAIT });
    // The shortcuts are listed on the page.
    assert.match(await page.locator('[data-shortcuts]').innerText(), /Ctrl\+S/);

    // Draw a rectangle with the mouse: press R, drag from 20%,25% to 50%,60% of the picture.
    await page.keyboard.press('r');
    assert.equal(await page.getByRole('button', { name: /^Rectangle/ }).getAttribute('aria-pressed'), 'true');
    const box = (await page.locator('[data-editor-overlay]').boundingBox())!;
    await page.mouse.move(box.x + box.width * 0.2, box.y + box.height * 0.25);
    await page.mouse.down();
    await page.mouse.move(box.x + box.width * 0.35, box.y + box.height * 0.4, { steps: 4 });
    await page.mouse.move(box.x + box.width * 0.5, box.y + box.height * 0.6, { steps: 4 });
    await page.mouse.up();
    await page.locator('[data-editor-overlay] .annotation.selected[data-shape="RECTANGLE"]').waitFor(WAIT);
    assert.equal(await page.locator('[data-editor-overlay] .annotation').count(), before + 1);

    // Its body: a script payload, typed into the Body textbox; needs remediation; AI likelihood.
    await page.getByLabel('Body', { exact: true }).fill(PAYLOAD);
    await page.getByLabel('Needs remediation').check();
    await page.getByLabel(/^AI likelihood/).fill('0.8');
    await page.getByRole('button', { name: /^Save edits/ }).click();
    await savedTimes(page, 1);

    // The API shows it at once, body verbatim, geometry consistent and where it was drawn.
    let annotations = await apiAnnotations();
    assert.equal(annotations.length, before + 1);
    const drawn = annotations.find((a) => a.bodies?.[0]?.value === PAYLOAD);
    assert.ok(drawn, 'the saved annotation carries the payload verbatim');
    const g = drawn.target.selector.geometry;
    assert.equal(drawn.target.selector.type, 'RECTANGLE');
    assert.ok(Math.abs(g.bounds.minX - 0.2) < 0.02 && Math.abs(g.bounds.minY - 0.25) < 0.02, `top-left ${JSON.stringify(g.bounds)}`);
    assert.ok(Math.abs(g.bounds.maxX - 0.5) < 0.02 && Math.abs(g.bounds.maxY - 0.6) < 0.02, `bottom-right ${JSON.stringify(g.bounds)}`);
    assert.deepEqual([g.x, g.y], [g.bounds.minX, g.bounds.minY]);
    assert.ok(Math.abs(g.w - (g.bounds.maxX - g.bounds.minX)) < 1e-6 && Math.abs(g.h - (g.bounds.maxY - g.bounds.minY)) < 1e-6);

    // The payload stayed text: nothing ran, the list shows it as characters.
    assert.equal(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned), undefined);
    assert.match(await page.locator('.editor-list').innerText(), /<script>window\.__pwned/);

    // Move it with the keyboard: focus the selected shape, three steps right and one down, Ctrl+S.
    await page.locator('[data-editor-overlay] .annotation.selected').focus();
    for (const key of ['ArrowRight', 'ArrowRight', 'ArrowRight', 'ArrowDown']) await page.keyboard.press(key);
    await page.keyboard.press('Control+s');
    await savedTimes(page, 2);
    annotations = await apiAnnotations();
    const moved = annotations.find((a) => a.id === drawn.id)!;
    const m = moved.target.selector.geometry;
    assert.ok(Math.abs(m.bounds.minX - (g.bounds.minX + 0.03)) < 1e-6, `moved right: ${m.bounds.minX} from ${g.bounds.minX}`);
    assert.ok(Math.abs(m.bounds.minY - (g.bounds.minY + 0.01)) < 1e-6, `moved down: ${m.bounds.minY} from ${g.bounds.minY}`);
    assert.ok(Math.abs(m.w - g.w) < 1e-6 && Math.abs(m.h - g.h) < 1e-6, 'same size');

    // Resize it with the mouse: drag its bottom-right handle (select tool, back after drawing) 5% further.
    assert.equal(await page.getByRole('button', { name: /^Select/ }).getAttribute('aria-pressed'), 'true');
    const corner = (await page.locator('[data-editor-overlay] .editor-handle[data-handle="2"]').boundingBox())!;
    await page.mouse.move(corner.x + corner.width / 2, corner.y + corner.height / 2);
    await page.mouse.down();
    await page.mouse.move(corner.x + corner.width / 2 + box.width * 0.05, corner.y + corner.height / 2 + box.height * 0.05, { steps: 4 });
    await page.mouse.up();
    const resized = await page.locator('[data-editor-overlay] .annotation.selected').evaluate((e) => [Number(e.getAttribute('data-max-x')), Number(e.getAttribute('data-max-y'))]);
    assert.ok(Math.abs(resized[0]! - (m.bounds.maxX + 0.05)) < 0.02 && Math.abs(resized[1]! - (m.bounds.maxY + 0.05)) < 0.02, `resized to ${resized}`);

    // A polygon: P, three clicks, Enter; then deleted with the Delete key (the rectangle stays).
    await page.keyboard.press('p');
    // Focusing shapes may have scrolled the page: measure the drawing area again.
    const area = (await page.locator('[data-editor-overlay]').boundingBox())!;
    for (const [x, y] of [[0.7, 0.2], [0.9, 0.3], [0.75, 0.45]] as const) await page.mouse.click(area.x + area.width * x, area.y + area.height * y);
    await page.keyboard.press('Enter');
    await page.locator('[data-editor-overlay] .annotation.selected[data-shape="POLYGON"]').waitFor(WAIT);
    assert.equal(await page.locator('[data-editor-overlay] .annotation').count(), before + 2);
    await page.screenshot({ path: path.join(SCREENSHOTS, 'review-editor.png'), fullPage: true });
    await page.locator('[data-editor-overlay] .annotation.selected').focus();
    await page.keyboard.press('Delete');
    assert.equal(await page.locator('[data-editor-overlay] .annotation').count(), before + 1);
    await page.keyboard.press('Control+s');
    await savedTimes(page, 3);
    annotations = await apiAnnotations();
    assert.equal(annotations.length, before + 1);
    const final = annotations.find((a) => a.id === drawn.id)!.target.selector.geometry;
    assert.ok(Math.abs(final.bounds.maxX - resized[0]!) < 1e-6 && Math.abs(final.w - (final.bounds.maxX - final.bounds.minX)) < 1e-6, 'the resize was saved, bounds and w agree');

    // A decision shortcut never decides: with an empty Note, C only focuses the Note.
    await page.locator('[data-editor-overlay] .annotation.selected').focus();
    await page.keyboard.press('c');
    assert.equal(await page.evaluate(() => document.activeElement?.id), 'decision-note');
    assert.equal(new URL(page.url()).pathname, `/review/orders/${orderId}`);
    await page.getByRole('textbox', { name: 'Note' }).fill('Looked at every layer; the flagged area is hand-drawn. <b>ok</b>');
    await page.getByRole('button', { name: 'Certify', exact: true }).click();
    await page.waitForLoadState('load');
    await page.getByText(/Human Certified/).first().waitFor(WAIT);

    const order = (await (await fetch(`${base}/v1/orders/${orderId}`, { headers: { authorization: `Bearer ${token}` } })).json()) as { order_state: string; reviewed_by: string };
    assert.equal(order.order_state, 'Human Certified');
    assert.equal(order.reviewed_by, PEOPLE.rita.email);
    const certificate = await fetch(`${base}/v1/orders/${orderId}/certificate`, { headers: { authorization: `Bearer ${token}` } });
    assert.equal(certificate.status, 200);
    assert.equal(((await certificate.json()) as { status: string }).status, 'valid');
    assert.deepEqual(pageErrors, []);
  });
});
