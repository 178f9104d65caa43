/**
 * The upload page against real S3-compatible storage (s3rver) in real headless Chromium: the browser PUTs
 * the file cross-origin to the bucket's presigned URL (the bucket's CORS rules allow the application's
 * origin, as a production bucket behind the upload page must), the order is created from the stored upload,
 * the analysis reads the asset back from the bucket and writes its preview there, and the preview's signed
 * URL (the service's own GET /objects/…, which streams from the bucket) answers with that image. The embedded-storage variant of this flow, with its error cases and
 * layouts, is order-upload.test.ts.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import type { Browser, Page } from 'playwright-core';
import sharp from 'sharp';
import { createServices, type Services } from '../../src/app/services.js';
import { buildServer } from '../../src/app/http-server.js';
import { createServiceMetrics } from '../../src/metrics/service-metrics.js';
import type { DatabaseHandle } from '../../src/storage/database.js';
import { S3ObjectStorage } from '../../src/storage/object-storage/index.js';
import { launchChromium } from '../helpers/chromium.js';
import { openTestPglite } from '../helpers/database.js';
import { ACME, loadStandardFixture, USERS, removeTemporaryObjectStorages } from '../helpers/fixtures.js';
import { freePort } from '../helpers/free-port.js';
import { startS3Server, type TestS3Server } from '../helpers/s3-server.js';
import { apiOrderAsAdmin, testConfig } from './web-test-helpers.js';

describe('upload page with S3 storage, in Chromium', () => {
  let s3: TestS3Server;
  let handle: DatabaseHandle;
  let services: Services;
  let app: FastifyInstance;
  let browser: Browser;
  let base: string;
  const problems: string[] = [];

  before(async () => {
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    s3 = await startS3Server({ corsOrigins: [base] });
    handle = await openTestPglite();
    await loadStandardFixture(handle);
    const config = testConfig({ port, publicBaseUrl: base, issuerUrl: base, tokenAudience: `${base}/v1` });
    services = await createServices({ config, database: handle, storage: s3.storage('certdesk'), metrics: createServiceMetrics({ processMetrics: false }) });
    app = await buildServer(services);
    await app.listen({ host: '127.0.0.1', port });
    browser = await launchChromium();
  });

  after(async () => {
    await browser?.close();
    await app?.close();
    await services?.close();
    await handle?.close();
    await s3?.close();
  });


  test('a PNG goes from the browser to the bucket, becomes an order, and its analysis and preview use the bucket', async () => {
    assert.ok(services.storage instanceof S3ObjectStorage, 'the app stores objects in S3');
    const context = await browser.newContext({ baseURL: base, locale: 'en-US' });
    const page: Page = await context.newPage();
    page.on('console', (m) => {
      // The fixture's orders name previews that this empty bucket does not hold: the dashboard's images 404.
      if (m.type() === 'error' && !/Failed to load resource: the server responded with a status of 404/.test(m.text())) problems.push(m.text());
    });
    page.on('pageerror', (e) => problems.push(e.message));
    const uploadRequests: Array<{ method: string; url: string }> = [];
    page.on('request', (r) => {
      if (r.url().startsWith(s3.endpoint)) uploadRequests.push({ method: r.method(), url: r.url() });
    });

    await page.goto('/sign-in?lang=en');
    await page.getByLabel('E-mail').fill(USERS.editor.email);
    await page.getByLabel('Password').fill(USERS.editor.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForLoadState('load');
    await page.goto('/orders/new');
    await page.getByLabel('Project').selectOption({ label: 'Zeta' });
    await page.getByLabel('Order title').fill('Harbour');
    const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="640" height="480"><rect width="100%" height="100%" fill="#3a7bd5"/><circle cx="320" cy="240" r="120" fill="#fff"/></svg>`;
    const png = await sharp(Buffer.from(svg)).png().toBuffer();
    await page.locator('#upload-files').setInputFiles({ name: 'harbour.png', mimeType: 'image/png', buffer: png });
    await page.getByRole('button', { name: 'Upload and create orders' }).click();
    const item = page.locator('.upload-item[data-state="created"]');
    await item.waitFor();
    assert.equal(await page.locator('[data-upload-summary]').textContent(), '1 of 1 orders created.');

    // The bytes went straight from the browser to the bucket: one PUT to S3, nothing through the app.
    assert.deepEqual(
      uploadRequests.filter((r) => r.method === 'PUT').map((r) => new URL(r.url).pathname.split('/').slice(0, 3).join('/')),
      [`/${s3.bucket}/certdesk`],
    );
    const orderId = (await item.getAttribute('data-order-id'))!;
    const order = await apiOrderAsAdmin(base, orderId);
    assert.equal(order.order_state, 'In Progress');
    assert.equal(order.asset_name, 'harbour.png');
    const stored = await s3.storage('certdesk').head(`orgs/${ACME.id.toLowerCase()}/uploads/${order.asset_id}`);
    assert.equal(stored?.size, png.length);

    // The analysis reads the asset from the bucket and writes the preview there.
    while ((await services.jobs.worker.runDue()) > 0);
    const analysed = await apiOrderAsAdmin(base, orderId);
    assert.ok(analysed.analysis_list && analysed.analysis_list.length > 0, 'analysis results');
    assert.ok(analysed.analysis_list.every((a) => a.analysis_passed), JSON.stringify(analysed.analysis_list));
    assert.ok(analysed.asset_preview_url, 'a preview URL');
    // Preview URLs are the service's own signed URLs (GET /objects/…), which stream the object from the bucket.
    assert.ok(analysed.asset_preview_url.startsWith(`${base}/objects/orgs/${ACME.id.toLowerCase()}/`), analysed.asset_preview_url);
    const previewKey = decodeURIComponent(new URL(analysed.asset_preview_url).pathname.slice('/objects/'.length));
    const previewInBucket = await s3.storage('certdesk').head(previewKey);
    assert.ok(previewInBucket && previewInBucket.size > 0, `the preview ${previewKey} is in the bucket`);
    // The browser shows it: the preview URL answers with the image the bucket holds.
    const preview = await page.evaluate(async (url) => {
      const res = await fetch(url);
      return { status: res.status, type: res.headers.get('content-type'), size: (await res.arrayBuffer()).byteLength };
    }, analysed.asset_preview_url);
    assert.equal(preview.status, 200);
    assert.match(preview.type ?? '', /^image\//);
    assert.equal(preview.size, previewInBucket.size);
    assert.deepEqual(problems, []);
    await context.close();
  });
});

// The temporary object storage folders this file made (test/helpers/fixtures.ts).
after(removeTemporaryObjectStorages);
