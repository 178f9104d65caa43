/**
 * Webhook endpoints on the organization page in real headless Chromium, against the real app listening on
 * 127.0.0.1 (PGlite, standard fixture) and a real local receiver (private addresses allowed for the test,
 * WEBHOOK_ALLOW_PRIVATE=true). An administrator adds an endpoint, sees its secret once, sends a test event
 * that the receiver gets signed with that secret, sees the delivery in the log with its status and
 * response code, rotates the secret (the note on the 24 hours), disables and deletes the endpoint. The
 * background worker is not started: the test runs the due jobs (the real delivery job) when it wants the
 * event sent. The endpoint page is saved to test-output/screenshots/webhooks.png, or to
 * $CERTDESK_SCREENSHOTS_DIR/webhooks.png when set (how docs/screenshots/webhooks.png is made: a test run never
 * changes the committed tree).
 */
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { Webhook } from 'standardwebhooks';
import type { DatabaseHandle } from '../../src/storage/database.js';
import { assertDrawsJapanese, launchChromium } from '../helpers/chromium.js';
import { openTestPglite } from '../helpers/database.js';
import { loadStandardFixture, removeTemporaryObjectStorages, USERS } from '../helpers/fixtures.js';
import { freePort } from '../helpers/free-port.js';
import { startReceiver, type Receiver } from '../webhooks/receiver.js';
import { buildWebApp } from './web-test-helpers.js';

/** The other steps' pictures, for looking at (gitignored like the other browser suites'). */
const SCREENSHOTS = path.resolve('test-output/screenshots');
const DOC_SCREENSHOT = path.join(process.env.CERTDESK_SCREENSHOTS_DIR ? path.resolve(process.env.CERTDESK_SCREENSHOTS_DIR) : SCREENSHOTS, 'webhooks.png');

after(removeTemporaryObjectStorages);

describe('webhook endpoints in Chromium', () => {
  let handle: DatabaseHandle;
  let app: FastifyInstance;
  let browser: Browser;
  let receiver: Receiver;
  let context: BrowserContext;
  let page: Page;
  const problems: string[] = [];

  before(async () => {
    mkdirSync(path.dirname(DOC_SCREENSHOT), { recursive: true });
    mkdirSync(SCREENSHOTS, { recursive: true });
    handle = await openTestPglite();
    const { storage } = await loadStandardFixture(handle);
    receiver = await startReceiver();
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    app = await buildWebApp(handle, storage, { port, publicBaseUrl: base, issuerUrl: base, tokenAudience: `${base}/v1`, webhookAllowPrivate: true });
    await app.listen({ host: '127.0.0.1', port });
    browser = await launchChromium();
    context = await browser.newContext({ baseURL: base, locale: 'en-US', viewport: { width: 1280, height: 900 } });
    page = await context.newPage();
    page.on('console', (m) => {
      if (m.type() === 'error') problems.push(`${page.url()}: ${m.text()}`);
    });
    page.on('pageerror', (e) => problems.push(`${page.url()}: ${e.message}`));
    // Any CSP violation on any page is recorded by the page itself (no inline script is allowed to do it).
    await context.addInitScript(() => {
      document.addEventListener('securitypolicyviolation', (e) => console.error(`CSP violation: ${e.violatedDirective} ${e.blockedURI}`));
    });
  });

  after(async () => {
    await context?.close();
    await browser?.close();
    await app?.close();
    await receiver?.close();
    await handle?.close();
  });

  const shoot = (name: string) => page.screenshot({ path: path.join(SCREENSHOTS, `webhooks-${name}.png`), fullPage: true });

  /** Runs due jobs until `done` holds (deadline 60 s of real time: the machine may be loaded). */
  async function until(done: () => Promise<boolean> | boolean, what: string): Promise<void> {
    const deadline = Date.now() + 60_000;
    while (!(await done())) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
      const ran = await app.services.jobs.worker.runDue();
      if (ran === 0) await new Promise((r) => setTimeout(r, 20));
    }
  }

  test('an administrator adds an endpoint, tests it, reads the log, rotates, disables and deletes it', async () => {
    await page.goto('/sign-in');
    await page.getByLabel('E-mail').fill(USERS.admin.email);
    await page.getByLabel('Password').fill(USERS.admin.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL('**/orders');

    await page.goto('/organization');
    const section = page.locator('section#webhooks');
    await section.getByText('No webhook endpoints yet.').waitFor();
    await section.getByRole('link', { name: 'Add endpoint' }).click();
    await page.waitForURL('**/organization/webhooks/new');

    // Submitting without events shows the error on the field, values kept.
    const url = receiver.url('/ok?browser');
    await page.getByLabel('URL').fill(url);
    await page.getByLabel('Description').fill('Order system <staging>');
    await page.getByRole('button', { name: 'Add endpoint' }).click();
    await page.getByRole('alert').getByText('Choose at least one event.').waitFor();
    assert.equal(await page.getByLabel('URL').inputValue(), url);
    await shoot('form-error');

    await page.getByRole('checkbox', { name: /order\.created/ }).check();
    await page.getByRole('checkbox', { name: /order\.state_changed/ }).check();
    await page.getByRole('button', { name: 'Add endpoint' }).click();
    await page.waitForURL('**/organization/webhooks/secret/*');
    const secretUrl = page.url();
    await page.getByText('Copy the signing secret now. It is shown only once and cannot be recovered.').waitFor();
    const secret = (await page.locator('#webhook-secret').textContent())!.trim();
    assert.match(secret, /^whsec_[A-Za-z0-9+/]{43}=$/);
    await shoot('secret');

    // Once: going back to that address lands on the organization page, without the secret.
    await page.goto(secretUrl);
    assert.equal(new URL(page.url()).pathname, '/organization');
    assert.equal(await page.getByText(secret).count(), 0);
    const row = page.locator('section#webhooks tbody tr');
    assert.equal(await row.count(), 1);
    assert.match((await row.textContent())!, /order\.created[\s\S]*order\.state_changed[\s\S]*Enabled/);
    assert.match((await row.textContent())!, /Order system <staging>/, 'the description as text');
    await shoot('organization');
    await row.getByRole('link', { name: 'Manage' }).click();
    await page.waitForURL('**/organization/webhooks/*');
    const endpointUrl = page.url();

    await page.getByRole('button', { name: 'Send test event' }).click();
    await page.getByText('A test event was queued; it appears in the delivery log below.').waitFor();
    await until(() => receiver.received.some((r) => r.path === '/ok?browser'), 'the test event at the receiver');
    const received = receiver.received.find((r) => r.path === '/ok?browser')!;
    const event = new Webhook(secret).verify(received.body, received.headers as Record<string, string>) as { type: string };
    assert.equal(event.type, 'webhook.test');

    // The log shows the delivery once its outcome is recorded (the page is reloaded until then).
    const delivery = page.locator('table.deliveries tbody tr').first();
    await until(async () => {
      await page.goto(endpointUrl);
      return (await delivery.getAttribute('data-delivery-status').catch(() => null)) === 'succeeded';
    }, 'the delivery in the log');
    const cells = await delivery.locator('td').allTextContents();
    assert.equal(cells[0]!.trim(), 'webhook.test');
    assert.equal(cells[1]!.trim(), received.headers['webhook-id']);
    assert.equal(cells[2]!.trim(), 'succeeded');
    assert.equal(cells[3]!.trim(), '200');
    assert.match(cells[4]!.trim(), /^\d+ ms$/);
    assert.equal(cells[5]!.trim(), '1');
    assert.match(cells[6]!, /UTC/);
    assert.equal(cells[7]!.trim(), '—');
    await assertDrawsJapanese(page);
    await page.screenshot({ path: DOC_SCREENSHOT, fullPage: true });

    // Narrow screens: the log scrolls inside its panel, never the page.
    await page.setViewportSize({ width: 390, height: 844 });
    assert.ok(await page.evaluate(() => document.documentElement.scrollWidth <= document.documentElement.clientWidth), 'no sideways scrolling at 390 px');
    await shoot('endpoint-390');
    await page.setViewportSize({ width: 1280, height: 900 });

    await page.getByRole('button', { name: 'Rotate secret' }).click();
    await page.waitForURL('**/organization/webhooks/secret/*');
    await page.getByText('The previous secret keeps signing beside this one for 24 hours').waitFor();
    const rotated = (await page.locator('#webhook-secret').textContent())!.trim();
    assert.match(rotated, /^whsec_/);
    assert.notEqual(rotated, secret);
    await page.getByRole('link', { name: /Continue to the endpoint/ }).click();
    await page.waitForURL(endpointUrl);

    await page.getByRole('button', { name: 'Disable' }).click();
    await page.getByText('The endpoint was disabled: no event is sent to it.').waitFor();
    assert.equal(await page.locator('h1 [data-status]').getAttribute('data-status'), 'disabled');
    assert.ok(await page.getByRole('button', { name: 'Send test event' }).isDisabled());
    await shoot('disabled');

    await page.getByRole('link', { name: 'Delete' }).click();
    await page.getByRole('heading', { name: 'Delete this webhook endpoint?' }).waitFor();
    await page.getByRole('button', { name: 'Delete' }).click();
    await page.getByText('The webhook endpoint was deleted.').waitFor();
    assert.equal(new URL(page.url()).pathname, '/organization');
    await page.locator('section#webhooks').getByText('No webhook endpoints yet.').waitFor();

    // The one expected error: Chromium logs the form's deliberate 422 (no events chosen) as a failed load.
    const unexpected = problems.filter((p) => !/\/organization\/webhooks: Failed to load resource: .* 422 /.test(p));
    assert.deepEqual(unexpected, [], 'no other console errors, no CSP violation');
  });
});
