/**
 * `/verify` (a file's Content Credentials checked in the browser) and `/verify/{id}` accepting the
 * credentialed file, in real headless Chromium against the real app: the C2PA reference implementation's
 * WebAssembly is served by the app and fetched only once a file is given. The certified files are the
 * service's own: orders certified through the review routes, the Content Credentials job run, the file
 * downloaded from `GET /v1/orders/{id}/certificate/file`, read against the trust anchors the service
 * publishes. They read as certified; with one byte of their image data flipped, as altered; a plain file
 * as having no Content Credentials; someone else's Content Credentials are named; certdesk's genuine
 * assertion in a manifest someone else signed is not certdesk's; a revoked certificate's file reads as
 * revoked. Runs on PGlite, and on PostgreSQL when TEST_DATABASE_URL is set.
 */
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { after, before, it } from 'node:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { revokeCertificateNow } from '../../src/domain/certificates/index.js';
import { makeSigningChain, signAsset, type TestSigningChain } from '../helpers/c2pa-fixtures.js';
import { eventually, TEST_REVIEWER } from '../helpers/certificates.js';
import { launchChromium } from '../helpers/chromium.js';
import { certifyWithAsset, downloadCredentialedFile, runContentCredentialsJobs } from '../helpers/content-credentials.js';
import { describeOnEachDatabase } from '../helpers/database.js';
import { freePort } from '../helpers/free-port.js';
import { pngBytes } from '../helpers/images.js';
import { openReviewWorld, type ReviewWorld } from '../review/review-world.js';

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

interface Certified {
  certificateId: string;
  file: Buffer;
  assertion: Record<string, unknown>;
  organization: string;
}

describeOnEachDatabase('file check /verify in Chromium', (getDb, target) => {
  let w: ReviewWorld;
  let browser: Browser;
  let base: string;
  let stranger: TestSigningChain;
  let harbour: Certified;
  let quay: Certified;
  const uploaded = pngBytes(40, 30);
  const contexts: BrowserContext[] = [];
  const pageErrors: string[] = [];
  const docShots = target.name === 'pglite' && process.env.CERTDESK_SCREENSHOTS_DIR;
  const shot = (name: string) => (docShots ? path.join(path.resolve(docShots), `${name}.png`) : path.join(SCREENSHOTS, `${name}-${target.name}.png`));

  /** The service's credentialed file of order `orderId` (certified already, its job run), with what it carries. */
  async function credentialed(orderId: string): Promise<Certified> {
    const res = await downloadCredentialedFile(w.app, w.customerToken, orderId);
    assert.equal(res.statusCode, 200, res.body.slice(0, 300));
    const certificate = (await w.app.inject({ url: `/v1/orders/${orderId}/certificate`, headers: { authorization: `Bearer ${w.customerToken}` } })).json() as { certificate_id: string; jws: string; asset_sha256: string; verify_url: string };
    const claims = JSON.parse(Buffer.from(certificate.jws.split('.')[1]!, 'base64url').toString('utf8')) as { iss: string; org_name: string };
    const assertion = { certificate_id: certificate.certificate_id, issuer: claims.iss, verify_url: certificate.verify_url, status_url: `${claims.iss}/v1/certificates/${certificate.certificate_id}`, asset_sha256: certificate.asset_sha256, jws: certificate.jws };
    return { certificateId: certificate.certificate_id, file: res.rawPayload, assertion, organization: claims.org_name };
  }

  before(async () => {
    mkdirSync(path.dirname(shot('any')), { recursive: true });
    w = await openReviewWorld(getDb(), 4);
    await certifyWithAsset(w, 'q1', uploaded, 'image/png');
    await certifyWithAsset(w, 'q2', pngBytes(20, 20), 'image/png');
    await runContentCredentialsJobs(w.app);
    harbour = await credentialed('q1');
    quay = await credentialed('q2');
    stranger = await makeSigningChain('Other Studio');
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    await w.app.listen({ host: '127.0.0.1', port });
    browser = await launchChromium();
  });

  after(async () => {
    for (const c of contexts) await c.close();
    await browser?.close();
    await w?.close();
  });

  /** A page whose requests for the C2PA WebAssembly are counted, its errors and any request to another origin recorded. */
  async function newPage(): Promise<{ page: Page; wasmRequests: () => number }> {
    const context = await browser.newContext({ baseURL: base, locale: 'en-US', viewport: { width: 1000, height: 760 } });
    contexts.push(context);
    const page = await context.newPage();
    let wasm = 0;
    page.on('request', (r) => {
      if (new URL(r.url()).pathname === '/static/c2pa.wasm') wasm++;
      if (!r.url().startsWith(base)) pageErrors.push(`request to another origin: ${r.url()}`);
    });
    page.on('pageerror', (e) => pageErrors.push(`${page.url()}: ${e.message}`));
    page.on('console', (m) => {
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

    assert.equal(await check(page, 'harbour-credentialed.png', harbour.file), 'certified');
    assert.equal(wasmRequests(), 1);
    const verdict = await page.locator('#file-verdict').innerText();
    assert.ok(verdict.startsWith(`Certified human-made by ${harbour.organization} on `), verdict);
    assert.match(await checkText(page, 'file'), /^File intact/);
    assert.match(await checkText(page, 'signer'), /^Content Credentials signed by \S.*, with a certificate of certdesk’s published trust anchors\.$/);
    assert.match(await checkText(page, 'signature'), /^Certificate signature valid: checked in your browser against \/\.well-known\/jwks\.json/);
    assert.match(await checkText(page, 'status'), /^Live status: valid/);
    // The transparency log: the proof the file carries, checked against the service's /log/key.
    assert.match(await checkText(page, 'log'), /^In the public transparency log .* entry \d+/);
    assert.equal(await page.locator('#certificate-link').getAttribute('href'), `/verify/${harbour.certificateId}`);
    await page.screenshot({ path: shot('verify-file-certified'), fullPage: true });
    assert.deepEqual(pageErrors, []);
  });

  it('a byte flipped in the image data: altered, with the reference implementation\'s code', async () => {
    const { page } = await newPage();
    await page.goto('/verify');
    assert.equal(await check(page, 'harbour-edited.png', flipImageByte(harbour.file)), 'altered');
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
    const forged = await signAsset(pngBytes(16, 12), 'image/png', { chain: stranger, claimGenerator: 'Forger', assertions: { [ASSERTION]: harbour.assertion } });
    assert.equal(await check(page, 'forged.png', forged), 'untrusted');
    assert.match(await page.locator('#file-verdict').innerText(), /^Not certified by this service: .* signed by Other Studio, not by certdesk\.$/);
    assert.deepEqual(pageErrors, []);
  });

  it("certdesk's signature over an assertion whose certificate does not verify, or is another issuer's, is not certified", async () => {
    const { page } = await newPage();
    await page.goto('/verify');
    const jws = String(harbour.assertion.jws);
    const tampered = `${jws.slice(0, -4)}${jws.endsWith('AAAA') ? 'BBBB' : 'AAAA'}`;
    const badJws = await signAsset(pngBytes(12, 12), 'image/png', { chain: w.app.services.c2paSigner, claimGenerator: 'certdesk', assertions: { [ASSERTION]: { ...harbour.assertion, jws: tampered } } });
    assert.equal(await check(page, 'bad-jws.png', badJws), 'bad-signature');
    assert.match(await checkText(page, 'signature'), /^Certificate signature NOT valid: the signature does not match the certificate\.$/);
    const foreign = await signAsset(pngBytes(12, 12), 'image/png', {
      chain: w.app.services.c2paSigner,
      claimGenerator: 'certdesk',
      assertions: { [ASSERTION]: { ...harbour.assertion, issuer: 'https://other-certdesk.example', verify_url: 'https://other-certdesk.example/verify/x' } },
    });
    assert.equal(await check(page, 'foreign.png', foreign), 'foreign');
    assert.equal(await page.locator('#file-verdict').innerText(), 'This file carries a certificate issued by https://other-certdesk.example, not by this service: check it there (https://other-certdesk.example/verify/x).');
    assert.deepEqual(pageErrors, []);
  });

  it('a revoked certificate: the credentialed file reads as revoked, with the reason', async () => {
    await revokeCertificateNow(w.app.services.database.db, w.app.services.clock, quay.certificateId, 'Generated layers found', TEST_REVIEWER);
    // Revoked and sequenced: the file carries only its issuance proof, and the page takes the revocation's from
    // the live record (the world's clock is frozen, so the log's 60-s grace would not cover it for long).
    await eventually(
      () => fetch(`${base}/v1/certificates/${quay.certificateId}`).then((r) => r.json() as Promise<{ status: string; transparency_log: { revoked: { index: number } | null } | null }>),
      (c) => c.status === 'revoked' && Boolean(c.transparency_log?.revoked),
      'the revocation on the public route and in the log',
    );
    const { page } = await newPage();
    // Checked ten minutes after the revocation, well past the log's grace period (DEFAULT_LOG_GRACE_MS): the
    // revocation must be proven from the log, not excused as not sequenced yet.
    await page.clock.setFixedTime(Date.now() + 10 * 60_000);
    await page.goto('/verify');
    assert.equal(await check(page, 'quay.png', quay.file), 'revoked');
    assert.ok((await page.locator('#file-verdict').innerText()).startsWith(`Revoked: ${quay.organization} certified this file on `));
    assert.match(await checkText(page, 'status'), /^Live status: revoked on .*Reason: Generated layers found$/);
    assert.match(await checkText(page, 'log'), /Its revocation is entry \d+ of the log\.$/);
    assert.deepEqual(pageErrors, []);
  });

  it('/verify/{id} accepts the credentialed file as the certified file, and refuses it altered', async () => {
    const { page, wasmRequests } = await newPage();
    await page.goto(`/verify/${harbour.certificateId}`);
    await page.locator('#signature-result[data-result="valid"]').waitFor(WAIT);
    // The file as uploaded matches by its digest alone: no WebAssembly needed.
    await page.locator('#file-to-check').setInputFiles({ name: 'harbour.png', mimeType: 'image/png', buffer: uploaded });
    await page.locator('#file-result[data-result="match"]').waitFor(WAIT);
    assert.equal(wasmRequests(), 0);
    await page.locator('#file-to-check').setInputFiles({ name: 'harbour-credentialed.png', mimeType: 'image/png', buffer: harbour.file });
    await page.locator('#file-result[data-result="match"]').filter({ hasText: 'Content Credentials' }).waitFor(WAIT);
    assert.match(await page.locator('#file-result').innerText(), /^Match: harbour-credentialed\.png is the certified file with this certificate embedded as Content Credentials/);
    await page.locator('#file-to-check').setInputFiles({ name: 'harbour-edited.png', mimeType: 'image/png', buffer: flipImageByte(harbour.file) });
    await page.locator('#file-result[data-result="mismatch"]').waitFor(WAIT);
    assert.equal(await page.locator('#file-result').innerText(), 'No match: harbour-edited.png carries this certificate, but was altered after certdesk signed it.');
    // Another certificate's credentialed file is not this one's.
    await page.locator('#file-to-check').setInputFiles({ name: 'quay.png', mimeType: 'image/png', buffer: quay.file });
    await page.locator('#file-result[data-result="mismatch"]').filter({ hasText: 'is NOT the certified file' }).waitFor(WAIT);
    assert.deepEqual(pageErrors, []);
  });
});
