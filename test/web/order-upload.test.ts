/**
 * The web application's write side in real headless Chromium, against the real app listening on
 * 127.0.0.1 over PGlite with the standard fixture and real local object storage: the upload page sends
 * real PNGs (made with sharp) straight to storage with presigned PUTs and creates their orders; the order
 * page follows the analysis (the real job handlers, run by the test) without a reload; the customer
 * answers Action Required with a message and an evidence file. Per-file errors in French, the viewer's
 * notice and refusal, layouts at 1280 and 390 px. Screenshots go to test-output/screenshots/write-*.png.
 */
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import sharp from 'sharp';
import { createServices, type Services } from '../../src/app/services.js';
import { listOrderEvents } from '../../src/domain/orders/order-lifecycle.repository.js';
import { buildServer } from '../../src/app/http-server.js';
import { translate } from '../../src/i18n/index.js';
import { createServiceMetrics } from '../../src/metrics/service-metrics.js';
import type { DatabaseHandle } from '../../src/storage/database.js';
import { openTestPglite } from '../helpers/database.js';
import { ACME, loadStandardFixture, USERS, type FixtureUser, removeTemporaryObjectStorages } from '../helpers/fixtures.js';
import { apiOrderAsAdmin, testConfig } from './web-test-helpers.js';
import { freePort } from '../helpers/free-port.js';
import { launchChromium } from '../helpers/chromium.js';

const SCREENSHOTS = path.resolve('test-output/screenshots');
/** Small, so that a real PNG of noise is "too large" without sending megabytes. */
const MAX_UPLOAD_BYTES = 150_000;


/** A clean picture: a gradient with a shape, no metadata. */
async function cleanPng(width: number, height: number, hue: number): Promise<Buffer> {
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}">
    <defs><linearGradient id="g" x1="0" y1="0" x2="1" y2="1"><stop offset="0" stop-color="hsl(${hue},70%,60%)"/><stop offset="1" stop-color="hsl(${hue + 90},60%,35%)"/></linearGradient></defs>
    <rect width="100%" height="100%" fill="url(#g)"/><circle cx="${width / 2}" cy="${height / 2}" r="${height / 4}" fill="#fff" fill-opacity="0.6"/></svg>`;
  return sharp(Buffer.from(svg)).png().toBuffer();
}

/** A PNG whose EXIF says a generator made it: the metadata check fails and the order needs a response. */
async function generatorTaggedPng(): Promise<Buffer> {
  return sharp(await cleanPng(400, 300, 20)).withExif({ IFD0: { Software: 'Midjourney v6' } }).png().toBuffer();
}

/** Random pixels do not compress: a real PNG above MAX_UPLOAD_BYTES. */
async function noisePng(): Promise<Buffer> {
  const width = 300;
  const height = 300;
  const raw = Buffer.alloc(width * height * 3);
  for (let i = 0; i < raw.length; i++) raw[i] = (i * 2654435761) >>> 24;
  return sharp(raw, { raw: { width, height, channels: 3 } }).png({ compressionLevel: 0 }).toBuffer();
}

describe('web write flow in Chromium', () => {
  let handle: DatabaseHandle;
  let services: Services;
  let app: FastifyInstance;
  let browser: Browser;
  let base: string;
  const contexts: BrowserContext[] = [];
  const problems: string[] = [];

  before(async () => {
    mkdirSync(SCREENSHOTS, { recursive: true });
    handle = await openTestPglite();
    const { storage } = await loadStandardFixture(handle);
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    const config = testConfig({ port, publicBaseUrl: base, issuerUrl: base, tokenAudience: `${base}/v1`, maxUploadBytes: MAX_UPLOAD_BYTES });
    // The worker is not started: the test runs the due jobs itself, when it wants the analysis to happen.
    services = await createServices({ config, database: handle, storage, metrics: createServiceMetrics({ processMetrics: false }) });
    app = await buildServer(services);
    await app.listen({ host: '127.0.0.1', port });
    browser = await launchChromium();
  });

  after(async () => {
    for (const c of contexts) await c.close();
    await browser?.close();
    await app?.close();
    await services?.close();
    await handle?.close();
  });

  async function runJobs(): Promise<void> {
    while ((await services.jobs.worker.runDue()) > 0);
  }

  async function newPage(locale = 'en-US', viewport = { width: 1280, height: 900 }): Promise<Page> {
    const context = await browser.newContext({ baseURL: base, locale, viewport });
    contexts.push(context);
    const page = await context.newPage();
    // CSP violations are reported to the page as events (and logged); both are collected.
    await page.addInitScript(() => {
      document.addEventListener('securitypolicyviolation', (e) => console.error(`CSP violation: ${e.violatedDirective} ${e.blockedURI}`));
    });
    page.on('console', (m) => {
      // 4xx answers of the JSON routes are expected in the error cases; Chromium logs them as resources.
      if (m.type() === 'error' && !/Failed to load resource: the server responded with a status of 4\d\d/.test(m.text())) problems.push(`${page.url()}: ${m.text()}`);
    });
    page.on('pageerror', (e) => problems.push(`${page.url()}: ${e.message}`));
    return page;
  }

  async function shoot(page: Page, name: string): Promise<void> {
    await page.screenshot({ path: path.join(SCREENSHOTS, `write-${name}.png`), fullPage: true });
  }

  async function signIn(page: Page, user: FixtureUser): Promise<void> {
    await page.goto('/sign-in?lang=en');
    await page.getByLabel('E-mail').fill(user.email);
    await page.getByLabel('Password').fill(user.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForLoadState('load');
  }

  async function noHorizontalOverflow(page: Page, what: string): Promise<void> {
    const { scroll, client } = await page.evaluate(() => ({ scroll: document.documentElement.scrollWidth, client: document.documentElement.clientWidth }));
    assert.ok(scroll <= client, `${what}: page is ${scroll}px wide in a ${client}px viewport`);
  }

  /** Drops files on the drop zone the way a browser does: a drop event carrying a DataTransfer. */
  async function dropFiles(page: Page, files: Array<{ name: string; type: string; bytes: Buffer }>): Promise<void> {
    const dataTransfer = await page.evaluateHandle((list) => {
      const dt = new DataTransfer();
      for (const f of list) dt.items.add(new File([Uint8Array.from(atob(f.b64), (c) => c.charCodeAt(0))], f.name, { type: f.type }));
      return dt;
    }, files.map((f) => ({ name: f.name, type: f.type, b64: f.bytes.toString('base64') })));
    await page.dispatchEvent('[data-dropzone]', 'dragenter', { dataTransfer });
    await page.dispatchEvent('[data-dropzone]', 'drop', { dataTransfer });
  }


  let editor: Page;
  const created: Record<string, string> = {};

  test('an editor chooses one PNG and drops another; both go to storage with progress bars and become orders in Zeta', async () => {
    editor = await newPage();
    await signIn(editor, USERS.editor);
    await editor.getByRole('link', { name: 'New order' }).click();
    assert.equal(new URL(editor.url()).pathname, '/orders/new');
    // The editor writes to both of their projects (editor in Zeta, admin of beta): no viewer notice.
    const options = await editor.locator('#upload-project option').evaluateAll((os) => os.map((o) => [(o as HTMLOptionElement).textContent, (o as HTMLOptionElement).disabled]));
    assert.deepEqual(options, [['Personal order (no project)', false], ['beta', false], ['Zeta', false]]);
    assert.equal(await editor.locator('[data-viewer-notice]').count(), 0);
    await editor.getByLabel('Project').selectOption({ label: 'Zeta' });
    await editor.getByLabel('Order title').fill('Spring set');
    const clean = await cleanPng(640, 480, 200);
    const tagged = await generatorTaggedPng();
    assert.ok(clean.length < MAX_UPLOAD_BYTES && tagged.length < MAX_UPLOAD_BYTES);
    await editor.locator('#upload-files').setInputFiles({ name: 'harbour.png', mimeType: 'image/png', buffer: clean });
    await dropFiles(editor, [{ name: 'dragon.png', type: 'image/png', bytes: tagged }]);
    const items = editor.locator('.upload-item');
    assert.deepEqual(await items.evaluateAll((li) => li.map((l) => [l.getAttribute('data-file-name'), l.getAttribute('data-state')])), [['harbour.png', 'waiting'], ['dragon.png', 'waiting']]);
    await shoot(editor, 'upload-selected');

    await editor.getByRole('button', { name: 'Upload and create orders' }).click();
    await editor.locator('.upload-item[data-state="created"]').nth(1).waitFor();
    assert.equal(await editor.locator('[data-upload-summary]').textContent(), '2 of 2 orders created.');
    assert.deepEqual(await editor.locator('.upload-item progress').evaluateAll((ps) => ps.map((p) => (p as HTMLProgressElement).value)), [100, 100]);
    for (const name of ['harbour.png', 'dragon.png']) {
      const item = editor.locator(`.upload-item[data-file-name="${name}"]`);
      const orderId = (await item.getAttribute('data-order-id'))!;
      const link = item.getByRole('link', { name: `Spring set (${name})` });
      assert.equal(await link.getAttribute('href'), `/orders/${orderId}`);
      created[name] = orderId;
      // The order exists as the API shows it: In Progress in Zeta, the editor's, its asset the bytes sent.
      const order = await apiOrderAsAdmin(base, orderId);
      assert.equal(order.order_state, 'In Progress');
      assert.equal(order.order_title, `Spring set (${name})`);
      assert.equal(order.asset_name, name);
      assert.equal(order.email, USERS.editor.email);
      assert.deepEqual(order.project, { id: ACME.projects.zeta.id, name: 'Zeta', userRole: 'admin' });
      const head = await services.storage.head(`orgs/${ACME.id.toLowerCase()}/uploads/${order.asset_id}`);
      assert.equal(head?.size, name === 'harbour.png' ? clean.length : tagged.length);
    }
    await shoot(editor, 'upload-done');
    await noHorizontalOverflow(editor, 'upload page at 1280 px');
  });

  test('the order page follows the analysis without a reload, then the customer answers Action Required', async () => {
    await editor.locator('.upload-item[data-file-name="dragon.png"]').getByRole('link').click();
    await editor.waitForURL(`**/orders/${created['dragon.png']}`);
    const badge = editor.locator('h1 [data-live-state]');
    assert.equal(await badge.textContent(), 'In Progress');
    await editor.locator('[data-live-order]', { hasText: 'Analysis running' }).waitFor();
    assert.equal(await editor.locator('[data-live-respond]').isHidden(), true);
    await shoot(editor, 'order-analysis-running');
    // A mark that a reload would wipe.
    await editor.evaluate(() => ((window as unknown as { notReloaded: boolean }).notReloaded = true));

    await runJobs();
    await editor.locator('h1 [data-live-state]', { hasText: 'Action Required' }).waitFor();
    assert.equal(await editor.evaluate(() => (window as unknown as { notReloaded?: boolean }).notReloaded), true, 'the page was not reloaded');
    assert.equal(await badge.getAttribute('class'), 'badge state-action-required');
    assert.equal(await editor.locator('[data-field="order_state"] [data-live-state]').textContent(), 'Action Required');
    // The preview the analysis rendered replaces "No preview", decoded from its presigned URL.
    const preview = editor.locator('img[data-live-preview]');
    await preview.evaluate((img: HTMLImageElement) => img.decode());
    assert.ok((await preview.evaluate((img: HTMLImageElement) => img.naturalWidth)) > 0);
    const order = await apiOrderAsAdmin(base, created['dragon.png']!);
    assert.equal(order.order_state, 'Action Required');
    const rows = await editor.locator('[data-live-analysis] tr[data-analysis-type]').evaluateAll((trs) =>
      trs.map((tr) => [tr.getAttribute('data-analysis-type'), tr.querySelector('.badge')!.classList.contains('analysis-pass')]),
    );
    assert.deepEqual(rows, order.analysis_list!.map((l) => [l.analysis_type, l.analysis_passed]));
    assert.ok(rows.some(([type, passed]) => type === 'metadata' && passed === false), 'the metadata check found the generator tag');
    assert.match((await editor.locator('[data-live-order]').textContent())!, /Analysis finished: the order is Action Required\./);
    await editor.locator('[data-live-respond]').waitFor({ state: 'visible' });
    await shoot(editor, 'order-action-required');

    await editor.getByLabel('Message').fill('Painted by hand in Krita; the layered file is attached.');
    const evidence = await cleanPng(200, 150, 300);
    await editor.getByLabel('Evidence files (optional)').setInputFiles({ name: 'layers.png', mimeType: 'image/png', buffer: evidence });
    await editor.getByRole('button', { name: 'Send response' }).click();
    await editor.locator('[data-live-order]', { hasText: 'Your response was sent.' }).waitFor();
    assert.equal(await badge.textContent(), 'In Progress');
    assert.equal(await editor.locator('[data-live-respond]').isHidden(), true);
    assert.equal(await editor.evaluate(() => (window as unknown as { notReloaded?: boolean }).notReloaded), true);
    const events = await listOrderEvents(services.database.db, created['dragon.png']!);
    const last = events.at(-1)!;
    assert.deepEqual([last.from_state, last.to_state], ['Action Required', 'In Progress']);
    assert.equal(last.type, 'responded');
    assert.equal(last.note, 'Painted by hand in Krita; the layered file is attached.');
    const uploadIds = last.changes?.upload_ids?.after as string[];
    assert.equal(uploadIds.length, 1);
    assert.equal((await services.storage.head(`orgs/${ACME.id.toLowerCase()}/uploads/${uploadIds[0]}`))?.size, evidence.length);
    await shoot(editor, 'order-responded');

    // The clean one: analysed, it waits for a reviewer; its page says so and does not poll.
    await editor.goto(`/orders/${created['harbour.png']}`);
    await editor.locator('[data-live-order]', { hasText: 'Analysis finished: the order waits for a reviewer.' }).waitFor();
    assert.deepEqual(await editor.locator('[data-live-analysis] tr[data-analysis-type]').evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-analysis-type'))), ['file_type', 'metadata', 'layer_check']);
    assert.equal(await editor.locator('[data-live-analysis] .analysis-fail').count(), 0);
    await noHorizontalOverflow(editor, 'order page at 1280 px');

    // A second answer once the order is back In Progress: the service's 409, as a JSON error in English.
    const csrf = (await editor.locator('[data-response-form]').getAttribute('data-csrf'))!;
    const again = await editor.request.post(`/orders/${created['dragon.png']}/responses`, { headers: { 'x-csrf-token': csrf }, data: { message: 'again' } });
    assert.equal(again.status(), 409);
    assert.deepEqual(await again.json(), { error: translate('en', 'errors.not_awaiting_response', { state: 'In Progress' }) });
  });

  test('per-file errors in French (too large, not an image), the viewer’s notice and refusal; the layout at 390 px', async () => {
    const viewer = await newPage('fr-FR', { width: 390, height: 844 });
    await signIn(viewer, USERS.viewer);
    await viewer.goto('/orders/new?lang=fr');
    assert.equal(await viewer.locator('html').getAttribute('lang'), 'fr');
    const notice = (await viewer.locator('[data-viewer-notice]').textContent())!;
    assert.equal(notice, translate('fr', 'web.upload.viewer_notice', { projects: 'Zeta' }));
    assert.equal(await viewer.locator('#upload-project option[value="' + ACME.projects.zeta.id + '"]').isDisabled(), true);
    await viewer.getByLabel('Titre de la commande').fill('Esquisses');
    const big = await noisePng();
    assert.ok(big.length > MAX_UPLOAD_BYTES);
    await viewer.locator('#upload-files').setInputFiles([
      { name: 'grand.png', mimeType: 'image/png', buffer: big },
      { name: 'notes.txt', mimeType: 'text/plain', buffer: Buffer.from('pas une image\n') },
      { name: 'croquis.png', mimeType: 'image/png', buffer: await cleanPng(320, 240, 120) },
    ]);
    await viewer.getByRole('button', { name: 'Envoyer et créer les commandes' }).click();
    await viewer.locator('[data-upload-summary]', { hasText: '1 commande(s) créée(s) sur 3.' }).waitFor();
    const status = (name: string) => viewer.locator(`.upload-item[data-file-name="${name}"] .upload-status`).textContent();
    assert.equal(await status('grand.png'), 'grand.png est trop volumineux : les fichiers sont limités à 146,5 KiB.');
    assert.equal(await status('notes.txt'), 'notes.txt n’est pas un fichier PNG, JPEG, WebP, TIFF ou PSD.');
    assert.match((await status('croquis.png'))!, /^Commande créée : Esquisses \(croquis\.png\)$/);
    assert.equal(await viewer.locator('.upload-item[data-state="error"]').count(), 2);
    await shoot(viewer, 'upload-errors-fr-390');
    await noHorizontalOverflow(viewer, 'upload page at 390 px');

    // Should the page still offer a project where the user is a viewer (a role changed meanwhile), the
    // server refuses it per file with the API's 403 message, in French.
    // Failed files can be taken off the list; the created one cannot.
    assert.equal(await viewer.locator('.upload-item[data-state="error"] .upload-remove:visible').count(), 2);
    assert.equal(await viewer.locator('.upload-item[data-state="created"] .upload-remove:visible').count(), 0);
    await viewer.getByRole('button', { name: 'Retirer grand.png' }).click();
    await viewer.getByRole('button', { name: 'Retirer notes.txt' }).click();
    assert.deepEqual(await viewer.locator('.upload-item').evaluateAll((li) => li.map((l) => l.getAttribute('data-file-name'))), ['croquis.png']);
    await viewer.locator('#upload-project option[disabled]').evaluate((o) => ((o as HTMLOptionElement).disabled = false));
    await viewer.locator('#upload-project').selectOption(ACME.projects.zeta.id);
    await viewer.locator('#upload-files').setInputFiles({ name: 'zeta.png', mimeType: 'image/png', buffer: await cleanPng(320, 240, 40) });
    await viewer.getByRole('button', { name: 'Envoyer et créer les commandes' }).click();
    await viewer.locator('.upload-item[data-file-name="zeta.png"][data-state="error"]').waitFor();
    assert.equal(await status('zeta.png'), translate('fr', 'errors.project_role_forbidden', { role: 'viewer' }));
    await shoot(viewer, 'upload-viewer-refused-fr-390');

    // The JSON routes: CSRF token required, and progress only of orders the user sees.
    const noToken = await viewer.request.post('/orders/uploads', { data: { file_name: 'a.png', content_type: 'image/png', size: 10 } });
    assert.equal(noToken.status(), 403);
    const hidden = await viewer.request.get('/orders/acme-0002/progress');
    assert.equal(hidden.status(), 404);
    const visible = await viewer.request.get(`/orders/${created['harbour.png']}/progress`);
    assert.equal(visible.status(), 200);
    assert.equal(((await visible.json()) as { order_state: string }).order_state, 'In Progress');

    // The editor's order page at 390 px: one column, nothing wider than the screen.
    const narrow = await newPage('en-US', { width: 390, height: 844 });
    await signIn(narrow, USERS.editor);
    await narrow.goto(`/orders/${created['harbour.png']}`);
    await narrow.locator('[data-live-order]', { hasText: 'Analysis finished' }).waitFor();
    await noHorizontalOverflow(narrow, 'order page at 390 px');
    await shoot(narrow, 'order-390');
    await narrow.goto('/orders/new');
    await noHorizontalOverflow(narrow, 'upload page at 390 px (editor)');
  });

  test('no page logged a CSP violation or a script error', () => {
    assert.deepEqual(problems, []);
  });
});

// The temporary object storage folders this file made (test/helpers/fixtures.ts).
after(removeTemporaryObjectStorages);
