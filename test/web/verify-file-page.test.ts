/**
 * `/verify` (a file's Content Credentials checked in the browser) and `/verify/{id}` accepting the
 * credentialed file, in real headless Chromium against the real app: the C2PA reference implementation's
 * WebAssembly is served by the app and fetched only once a file is given; a certified file, the same
 * file with one byte of its image data flipped, a plain file, a file with someone else's Content
 * Credentials, a certdesk assertion signed by someone else, and a revoked certificate each read as what
 * they are. Runs on PGlite, and on PostgreSQL when TEST_DATABASE_URL is set.
 *
 * The credentialed files are made here with the same library (test/helpers/c2pa-fixtures.ts), carrying
 * the real certificate of an order certified in this test; the page gets the test's signing root as
 * certdesk's trust anchors (routed in the browser).
 */
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { after, before, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { revokeCertificateNow } from '../../src/domain/certificates/index.js';
import { obtainToken } from '../http/api-harness.js';
import { makeSigningChain, signAsset, type TestSigningChain } from '../helpers/c2pa-fixtures.js';
import { certifyOrder, createOrderWithAsset, eventually, TEST_REVIEWER } from '../helpers/certificates.js';
import { launchChromium } from '../helpers/chromium.js';
import { describeOnEachDatabase } from '../helpers/database.js';
import { loadStandardFixture, USERS } from '../helpers/fixtures.js';
import { freePort } from '../helpers/free-port.js';
import { pngBytes } from '../helpers/images.js';
import { buildWebApp } from './web-test-helpers.js';

/**
 * The three results are saved to test-output/screenshots/verify-file-*-<database>.png, or, on the PGlite
 * run with $CERTDESK_SCREENSHOTS_DIR set, to verify-file-*.png there (how docs/screenshots/ gets them: a
 * test run never changes the committed tree).
 */
const SCREENSHOTS = path.resolve('test-output/screenshots');
const WAIT = { timeout: 60_000 };
const ASSERTION = 'org.certdesk.certificate';

/** The PNG with one byte of its first IDAT chunk's data flipped (the image changed, the manifest not). */
function flipImageByte(png: Buffer): Buffer {
  const idat = png.indexOf('IDAT', 8, 'latin1');
  assert.ok(idat > 0, 'the PNG has an IDAT chunk');
  const out = Buffer.from(png);
  out[idat + 6] = out[idat + 6]! ^ 0x01;
  return out;
}

describeOnEachDatabase('file check /verify in Chromium', (getDb, target) => {
  let app: FastifyInstance;
  let browser: Browser;
  let base: string;
  let certdesk: TestSigningChain;
  let stranger: TestSigningChain;
  let certificateId: string;
  let credentialed: Buffer;
  let revokedCertificateId: string;
  let revokedCredentialed: Buffer;
  const uploaded = pngBytes(40, 30);
  const contexts: BrowserContext[] = [];
  const pageErrors: string[] = [];
  const docShots = target.name === 'pglite' && process.env.CERTDESK_SCREENSHOTS_DIR;
  const shot = (name: string) => (docShots ? path.join(path.resolve(docShots), `${name}.png`) : path.join(SCREENSHOTS, `${name}-${target.name}.png`));

  let genuineAssertion: Record<string, string>;

  async function certifiedCopy(token: string, bytes: Buffer, name: string): Promise<{ id: string; file: Buffer; assertion: Record<string, string> }> {
    const orderId = await createOrderWithAsset(app, token, bytes, { name });
    const row = await certifyOrder(app, orderId);
    const assertion = {
      certificate_id: row.certificate_id,
      issuer: base,
      verify_url: `${base}/verify/${row.certificate_id}`,
      status_url: `${base}/v1/certificates/${row.certificate_id}`,
      asset_sha256: row.asset_sha256,
      jws: row.jws,
    };
    return { id: row.certificate_id, assertion, file: await signAsset(bytes, 'image/png', { chain: certdesk, claimGenerator: 'certdesk', title: name, assertions: { [ASSERTION]: assertion } }) };
  }

  before(async () => {
    mkdirSync(path.dirname(shot('any')), { recursive: true });
    const { storage } = await loadStandardFixture(getDb());
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    app = await buildWebApp(getDb(), storage, { port, publicBaseUrl: base, issuerUrl: base, tokenAudience: `${base}/v1` });
    await app.listen({ host: '127.0.0.1', port });
    certdesk = makeSigningChain('certdesk test deployment');
    stranger = makeSigningChain('Other Studio');
    const token = await obtainToken(app, USERS.admin.clientId, USERS.admin.clientSecret);
    ({ id: certificateId, file: credentialed, assertion: genuineAssertion } = await certifiedCopy(token, uploaded, 'harbour.png'));
    ({ id: revokedCertificateId, file: revokedCredentialed } = await certifiedCopy(token, pngBytes(20, 20), 'quay.png'));
    browser = await launchChromium();
  });

  after(async () => {
    for (const c of contexts) await c.close();
    await browser?.close();
    await app?.close();
  });

  /** A page whose requests for the C2PA WebAssembly are counted, and whose trust anchors are the test's certdesk root. */
  async function newPage(options: { testAnchors?: boolean } = {}): Promise<{ page: Page; wasmRequests: () => number }> {
    const context = await browser.newContext({ baseURL: base, locale: 'en-US', viewport: { width: 1000, height: 760 } });
    contexts.push(context);
    if (options.testAnchors !== false) await context.route('**/.well-known/c2pa-trust-anchors.pem', (route) => route.fulfill({ status: 200, contentType: 'application/x-pem-file', body: certdesk.rootPem }));
    const page = await context.newPage();
    let wasm = 0;
    page.on('request', (r) => {
      if (new URL(r.url()).pathname === '/static/c2pa.wasm') wasm++;
      if (!r.url().startsWith(base)) pageErrors.push(`request to another origin: ${r.url()}`);
    });
    page.on('pageerror', (e) => pageErrors.push(`${page.url()}: ${e.message}`));
    page.on('console', (m) => {
      // Published by other parts of the service, perhaps not (yet) in this build: a 404 of the log key
      // reads as "log not checked", one of the trust anchors (when not routed) as "no anchors".
      const missing = new URL(m.location().url || base).pathname;
      const optional = options.testAnchors === false ? ['/log/key', '/.well-known/c2pa-trust-anchors.pem'] : ['/log/key'];
      if (/Failed to load resource: .* 404/.test(m.text()) && optional.includes(missing)) return;
      if (m.type() === 'error' || /Content Security Policy|Refused/.test(m.text())) pageErrors.push(`${page.url()}: ${m.text()}`);
    });
    return { page, wasmRequests: () => wasm };
  }

  async function check(page: Page, name: string, content: Buffer): Promise<string> {
    await page.locator('#file-to-check').setInputFiles({ name, mimeType: 'image/png', buffer: content });
    await page.locator('#file-result:not([data-verdict="reading"]):not([data-verdict="none-yet"])').waitFor(WAIT);
    return (await page.locator('#file-result').getAttribute('data-verdict')) ?? '';
  }

  const checkText = (page: Page, name: string) => page.locator(`#file-checks li[data-check="${name}"]`).innerText();

  it('a certified file: who and when, intact, signed by certdesk, the JWS valid, the live status; the WebAssembly fetched only once a file is given', async () => {
    const { page, wasmRequests } = await newPage();
    const res = await page.goto('/verify');
    assert.equal(res?.status(), 200);
    assert.match(String(res?.headers()['content-security-policy']), /script-src 'self' 'wasm-unsafe-eval';/);
    await page.waitForLoadState('networkidle');
    assert.equal(wasmRequests(), 0, 'the page loads without the WebAssembly');

    assert.equal(await check(page, 'harbour-credentialed.png', credentialed), 'certified');
    assert.equal(wasmRequests(), 1);
    const verdict = await page.locator('#file-verdict').innerText();
    assert.match(verdict, /^Certified human-made by Acme Studio on /, verdict);
    assert.match(await checkText(page, 'file'), /^File intact/);
    assert.match(await checkText(page, 'signer'), /signed by certdesk test deployment/);
    assert.match(await checkText(page, 'signature'), /^Certificate signature valid: checked in your browser against \/\.well-known\/jwks\.json/);
    assert.match(await checkText(page, 'status'), /^Live status: valid/);
    // The transparency log: checked against /log/key when the service serves the log; said not checked otherwise.
    assert.match(await checkText(page, 'log'), /^(In the public transparency log .* entry \d+|Transparency log: not checked, the log key could not be loaded)/);
    assert.equal(await page.locator('#certificate-link').getAttribute('href'), `/verify/${certificateId}`);
    await page.screenshot({ path: shot('verify-file-certified'), fullPage: true });
    assert.deepEqual(pageErrors, []);
  });

  it('a byte flipped in the image data: altered, with the reference implementation\'s code', async () => {
    const { page } = await newPage();
    await page.goto('/verify');
    assert.equal(await check(page, 'harbour-edited.png', flipImageByte(credentialed)), 'altered');
    assert.match(await page.locator('#file-verdict').innerText(), /^Altered: this file was changed after certdesk signed it/);
    assert.match(await checkText(page, 'file'), /assertion\.dataHash\.mismatch/);
    await page.screenshot({ path: shot('verify-file-altered'), fullPage: true });
    assert.deepEqual(pageErrors, []);
  });

  it('a plain file: no Content Credentials, so no certificate of this service', async () => {
    const { page } = await newPage();
    await page.goto('/verify');
    assert.equal(await check(page, 'harbour.png', uploaded), 'none');
    assert.equal(await page.locator('#file-verdict').innerText(), 'No certificate of this service: harbour.png holds no Content Credentials.');
    assert.equal(await page.locator('#file-checks li').count(), 0);
    await page.screenshot({ path: shot('verify-file-plain'), fullPage: true });
    assert.deepEqual(pageErrors, []);
  });

  it("someone else's Content Credentials are named: signer and claim generator", async () => {
    const other = await signAsset(pngBytes(16, 12), 'image/png', { chain: stranger, claimGenerator: 'Other Editor' });
    const { page } = await newPage();
    await page.goto('/verify');
    assert.equal(await check(page, 'other.png', other), 'other');
    assert.equal(await page.locator('#file-verdict').innerText(), 'No certificate of this service. other.png holds other Content Credentials: signed by Other Studio, made with Other Editor 1.0.');
    assert.deepEqual(pageErrors, []);
  });

  it("certdesk's assertion copied into a manifest someone else signed is not a certificate of this service", async () => {
    const { page } = await newPage();
    await page.goto('/verify');
    // The genuine certificate (its JWS verifies), but in a manifest signed by another key.
    const forged = await signAsset(pngBytes(16, 12), 'image/png', { chain: stranger, claimGenerator: 'Forger', assertions: { [ASSERTION]: genuineAssertion } });
    assert.equal(await check(page, 'forged.png', forged), 'untrusted');
    assert.match(await page.locator('#file-verdict').innerText(), /^Not certified by this service: .* signed by Other Studio, not by certdesk\.$/);
    assert.deepEqual(pageErrors, []);
  });

  it("with the service's own trust anchors, a file signed by the test's root is not certdesk's", async () => {
    // Not routed: the page reads /.well-known/c2pa-trust-anchors.pem as served (no certificate of the
    // test's root there), so the same credentialed file no longer reads as signed by certdesk.
    const { page } = await newPage({ testAnchors: false });
    await page.goto('/verify');
    assert.equal(await check(page, 'harbour-credentialed.png', credentialed), 'untrusted');
    assert.match(await checkText(page, 'signer'), /^Signed by certdesk test deployment, whose certificate does not chain to certdesk’s published trust anchors\.$/);
  });

  it('a revoked certificate: the credentialed file reads as revoked, with the reason', async () => {
    await revokeCertificateNow(app.services.database.db, app.services.clock, revokedCertificateId, 'Generated layers found', TEST_REVIEWER);
    await eventually(() => fetch(`${base}/v1/certificates/${revokedCertificateId}`).then((r) => r.json() as Promise<{ status: string }>), (c) => c.status === 'revoked', 'the revocation on the public route');
    const { page } = await newPage();
    await page.goto('/verify');
    assert.equal(await check(page, 'quay.png', revokedCredentialed), 'revoked');
    assert.match(await page.locator('#file-verdict').innerText(), /^Revoked: Acme Studio certified this file on .*, but the certificate has been revoked/);
    assert.match(await checkText(page, 'status'), /^Live status: revoked on .*Reason: Generated layers found$/);
    assert.deepEqual(pageErrors, []);
  });

  it('/verify/{id} accepts the credentialed file as the certified file, and refuses it altered', async () => {
    const { page, wasmRequests } = await newPage();
    await page.goto(`/verify/${certificateId}`);
    await page.locator('#signature-result[data-result="valid"]').waitFor(WAIT);
    // The file as uploaded matches by its digest alone: no WebAssembly needed.
    await page.locator('#file-to-check').setInputFiles({ name: 'harbour.png', mimeType: 'image/png', buffer: uploaded });
    await page.locator('#file-result[data-result="match"]').waitFor(WAIT);
    assert.equal(wasmRequests(), 0);
    await page.locator('#file-to-check').setInputFiles({ name: 'harbour-credentialed.png', mimeType: 'image/png', buffer: credentialed });
    await page.locator('#file-result[data-result="match"]').filter({ hasText: 'Content Credentials' }).waitFor(WAIT);
    assert.match(await page.locator('#file-result').innerText(), /^Match: harbour-credentialed\.png is the certified file with this certificate embedded as Content Credentials/);
    await page.locator('#file-to-check').setInputFiles({ name: 'harbour-edited.png', mimeType: 'image/png', buffer: flipImageByte(credentialed) });
    await page.locator('#file-result[data-result="mismatch"]').waitFor(WAIT);
    assert.equal(await page.locator('#file-result').innerText(), 'No match: harbour-edited.png carries this certificate, but was altered after certdesk signed it.');
    // Another certificate's credentialed file is not this one's.
    await page.locator('#file-to-check').setInputFiles({ name: 'quay.png', mimeType: 'image/png', buffer: revokedCredentialed });
    await page.locator('#file-result[data-result="mismatch"]').filter({ hasText: 'is NOT the certified file' }).waitFor(WAIT);
    assert.deepEqual(pageErrors, []);
  });
});
