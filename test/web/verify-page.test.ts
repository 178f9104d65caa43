/**
 * The public certificate page `/verify/{id}` in real headless Chromium against the real app: the signature
 * is checked in the browser (WebCrypto against the JWKS), a chosen or dropped file is hashed locally and
 * said to match or not; a tampered JWS, a JWS of another issuer or key, a revoked certificate, and unknown
 * or malformed ids fail clearly. The transparency log: the page checks the certificate's entry, its inclusion
 * proof and the checkpoint's signature in the browser against /log/key and says so with the entry's index;
 * a changed proof, another key and a missing entry are said plainly. Runs on PGlite, and on PostgreSQL
 * when TEST_DATABASE_URL is set.
 */
import assert from 'node:assert/strict';
import { createHash, generateKeyPairSync } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { after, before, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { decodeJwt, generateKeyPair } from 'jose';
import type { Browser, BrowserContext, Page, Route } from 'playwright-core';
import { revokeCertificateNow, signCertificate, type CertificateClaims } from '../../src/domain/certificates/index.js';
import { obtainToken } from '../http/api-harness.js';
import { certifyOrder, createOrderWithAsset, eventually, TEST_REVIEWER } from '../helpers/certificates.js';
import { launchChromium } from '../helpers/chromium.js';
import { describeOnEachDatabase } from '../helpers/database.js';
import { loadStandardFixture, USERS } from '../helpers/fixtures.js';
import { freePort } from '../helpers/free-port.js';
import { pngBytes } from '../helpers/images.js';
import { buildWebApp } from './web-test-helpers.js';

const SCREENSHOTS = path.resolve('test-output/screenshots');
const WAIT = { timeout: 30_000 };

/** A verifier key string of another Ed25519 key under the same name (C2SP signed-note key id). */
function otherLogKey(name: string): string {
  const { publicKey } = generateKeyPairSync('ed25519');
  const raw = publicKey.export({ format: 'der', type: 'spki' }).subarray(-32);
  const id = createHash('sha256').update(Buffer.concat([Buffer.from(`${name}\n`), Buffer.from([1]), raw])).digest().subarray(0, 4).toString('hex');
  return `${name}+${id}+${Buffer.concat([Buffer.from([1]), raw]).toString('base64')}`;
}

/** The JWS with one character of its signature changed (a middle one: always changes the decoded bytes). */
function tamper(jws: string): string {
  const [h, p, s] = jws.split('.') as [string, string, string];
  const i = Math.floor(s.length / 2);
  return `${h}.${p}.${s.slice(0, i)}${s[i] === 'A' ? 'B' : 'A'}${s.slice(i + 1)}`;
}

describeOnEachDatabase('certificate verify page in Chromium', (getDb, target) => {
  let app: FastifyInstance;
  let browser: Browser;
  let base: string;
  let certificateId: string;
  let jws: string;
  const bytes = pngBytes(12, 9);
  const contexts: BrowserContext[] = [];
  const pageErrors: string[] = [];

  before(async () => {
    mkdirSync(SCREENSHOTS, { recursive: true });
    const { storage } = await loadStandardFixture(getDb());
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    app = await buildWebApp(getDb(), storage, { port, publicBaseUrl: base, issuerUrl: base, tokenAudience: `${base}/v1` });
    await app.listen({ host: '127.0.0.1', port });
    const token = await obtainToken(app, USERS.admin.clientId, USERS.admin.clientSecret);
    // Two certificates before this one, so its log entry is not the first.
    for (const name of ['dune.png', 'reef.png']) await certifyOrder(app, await createOrderWithAsset(app, token, pngBytes(7, 5), { name }));
    const orderId = await createOrderWithAsset(app, token, bytes, { name: 'harbour <night>.png' });
    const certificate = await certifyOrder(app, orderId);
    certificateId = certificate.certificate_id;
    jws = certificate.jws;
    browser = await launchChromium();
  });

  after(async () => {
    for (const c of contexts) await c.close();
    await browser?.close();
    await app?.close();
  });

  async function newPage(): Promise<Page> {
    const context = await browser.newContext({ baseURL: base, locale: 'en-US', viewport: { width: 1100, height: 900 } });
    contexts.push(context);
    const page = await context.newPage();
    page.on('pageerror', (e) => pageErrors.push(`${page.url()}: ${e.message}`));
    page.on('console', (m) => {
      if (m.type() === 'error' && /Content Security Policy|Refused/.test(m.text())) pageErrors.push(`${page.url()}: ${m.text()}`);
    });
    return page;
  }

  /** Serves the page a different JWS for this certificate (the API's answer otherwise unchanged). */
  async function serveJws(page: Page, replacement: string): Promise<void> {
    await page.route(`**/v1/certificates/${certificateId}`, async (route: Route) => {
      const response = await route.fetch();
      const body = (await response.json()) as Record<string, unknown>;
      await route.fulfill({ response, json: { ...body, jws: replacement } });
    });
  }

  async function chooseFile(page: Page, name: string, content: Buffer): Promise<void> {
    await page.locator('#file-to-check').setInputFiles({ name, mimeType: 'image/png', buffer: content });
  }

  it('a valid certificate: the signature verifies in the browser, the right file matches, another does not', async () => {
    const page = await newPage();
    const res = await page.goto(`/verify/${certificateId}`);
    assert.equal(res?.status(), 200);
    assert.equal(await page.locator('#certificate-status').getAttribute('data-status'), 'valid');
    await page.locator('#signature-result[data-result="valid"]').waitFor(WAIT);
    assert.match(await page.locator('#signature-result').innerText(), /^Signature valid: checked in your browser/);
    // Escaped everywhere: the asset name is text, not markup.
    assert.equal(await page.locator('.asset-name').innerText(), 'harbour <night>.png');
    assert.match(await page.locator('#badge-snippet').innerText(), new RegExp(`^<a href="${base}/verify/${certificateId}"><img src="${base}/verify/${certificateId}/badge.svg"`));

    await chooseFile(page, 'harbour.png', bytes);
    await page.locator('#file-result[data-result="match"]').waitFor(WAIT);
    assert.equal(await page.locator('#file-result').innerText(), 'Match: harbour.png is the certified file.');

    const other = Buffer.from(bytes);
    other.writeUInt8(other.readUInt8(other.length - 1) ^ 1, other.length - 1);
    await chooseFile(page, 'edited.png', other);
    await page.locator('#file-result[data-result="mismatch"]').waitFor(WAIT);
    assert.match(await page.locator('#file-result').innerText(), /^No match: edited\.png is NOT the certified file/);

    // Dropped rather than chosen: the same check.
    await page.evaluate(
      ({ data }) => {
        const transfer = new DataTransfer();
        transfer.items.add(new File([new Uint8Array(data)], 'dropped.png', { type: 'image/png' }));
        document.getElementById('drop-zone')!.dispatchEvent(new DragEvent('drop', { dataTransfer: transfer, bubbles: true, cancelable: true }));
      },
      { data: [...bytes] },
    );
    await page.locator('#file-result[data-result="match"]').waitFor(WAIT);
    assert.equal(await page.locator('#file-result').innerText(), 'Match: dropped.png is the certified file.');
    await page.screenshot({ path: path.join(SCREENSHOTS, `verify-valid-${target.name}.png`), fullPage: true });
    assert.deepEqual(pageErrors, []);
  });

  it('a tampered JWS fails, and then no file is confirmed', async () => {
    const page = await newPage();
    await serveJws(page, tamper(jws));
    await page.goto(`/verify/${certificateId}`);
    await page.locator('#signature-result[data-result="invalid"]').waitFor(WAIT);
    assert.equal(await page.locator('#signature-result').innerText(), 'Signature NOT valid: the signature does not match the certificate. Do not trust this certificate.');
    await chooseFile(page, 'harbour.png', bytes);
    await page.locator('#file-result[data-result="unverified"]').waitFor(WAIT);
    await page.screenshot({ path: path.join(SCREENSHOTS, `verify-tampered-${target.name}.png`), fullPage: true });
  });

  it('a JWS of another issuer fails: with its own key (not published), and with a key of the JWKS but another iss', async () => {
    const claims = decodeJwt(jws) as unknown as CertificateClaims;
    const foreign = await generateKeyPair('ES256');
    const page = await newPage();
    await serveJws(page, await signCertificate({ kid: 'evil-key', privateKey: foreign.privateKey }, { ...claims, iss: 'https://evil.example' }));
    await page.goto(`/verify/${certificateId}`);
    await page.locator('#signature-result[data-result="invalid"]').waitFor(WAIT);
    assert.match(await page.locator('#signature-result').innerText(), /signed by a key this service does not publish/);

    const second = await newPage();
    await serveJws(second, await signCertificate(app.services.certificates.signingKey(), { ...claims, iss: 'https://evil.example' }));
    await second.goto(`/verify/${certificateId}`);
    await second.locator('#signature-result[data-result="invalid"]').waitFor(WAIT);
    assert.match(await second.locator('#signature-result').innerText(), /issued by https:\/\/evil\.example, not by this service/);

    // A genuine signature over another certificate's claims is not this certificate.
    const third = await newPage();
    await serveJws(third, await signCertificate(app.services.certificates.signingKey(), { ...claims, jti: '00000000-0000-4000-8000-000000000000' }));
    await third.goto(`/verify/${certificateId}`);
    await third.locator('#signature-result[data-result="invalid"]').waitFor(WAIT);
    assert.match(await third.locator('#signature-result').innerText(), /differs from this certificate/);
  });

  interface LogObject {
    origin: string;
    issued: { index: number; inclusion_proof: string[]; checkpoint: string };
    revoked: { index: number } | null;
  }
  /** The certificate's `transparency_log` once the log has it (the sequencer signs a checkpoint within seconds). */
  async function logged(): Promise<LogObject> {
    const certificate = await eventually(
      () => fetch(`${base}/v1/certificates/${certificateId}`).then((r) => r.json() as Promise<{ transparency_log: LogObject | null }>),
      (c) => c.transparency_log !== null,
      'the certificate in the transparency log',
    );
    return certificate.transparency_log!;
  }

  /** Serves the page a changed certificate JSON (the API's answer otherwise unchanged). */
  async function serveCertificate(page: Page, change: (body: Record<string, unknown>) => Record<string, unknown>): Promise<void> {
    await page.route(`**/v1/certificates/${certificateId}`, async (route: Route) => {
      const response = await route.fetch();
      await route.fulfill({ response, json: change((await response.json()) as Record<string, unknown>) });
    });
  }

  it('the transparency log: the entry, its inclusion proof and the checkpoint signature are checked in the browser against /log/key', async () => {
    const log = await logged();
    const page = await newPage();
    const requests: string[] = [];
    page.on('request', (r) => requests.push(r.url()));
    await page.goto(`/verify/${certificateId}`);
    await page.locator('#log-result[data-result="valid"]').waitFor(WAIT);
    const size = Number(log.issued.checkpoint.split('\n')[1]);
    assert.equal(
      await page.locator('#log-result').innerText(),
      `In the public transparency log ${log.origin}: this certificate is entry ${log.issued.index} (counting from 0). Checked in your browser: the entry is this certificate’s, its inclusion proof leads to the root of the log’s checkpoint (tree size ${size}), and that checkpoint is signed by the log key at /log/key.`,
    );
    assert.ok(requests.includes(`${base}/log/key`), 'the key is read from this service');
    assert.deepEqual(requests.filter((u) => !u.startsWith(`${base}/`)), [], 'no other host');
    await page.locator('#signature-result[data-result="valid"]').waitFor(WAIT);
    await page.screenshot({ path: path.join(SCREENSHOTS, `verify-transparency-log-${target.name}.png`), fullPage: true });
    // docs/screenshots/verify-transparency-log.png is made with CERTDESK_SCREENSHOTS_DIR=docs/screenshots: a test run never changes the committed tree.
    if (process.env.CERTDESK_SCREENSHOTS_DIR && target.name === 'pglite') {
      await page.screenshot({ path: path.join(path.resolve(process.env.CERTDESK_SCREENSHOTS_DIR), 'verify-transparency-log.png'), fullPage: true });
    }

    // A proof that does not lead to the checkpoint (one hash changed), another log's key, a missing entry.
    const flipped = (hash: string) => Buffer.from(Buffer.from(hash, 'base64').map((b, i) => (i === 0 ? b ^ 1 : b))).toString('base64');
    const badProof = await newPage();
    await serveCertificate(badProof, (body) => ({ ...body, transparency_log: { ...log, issued: { ...log.issued, inclusion_proof: log.issued.inclusion_proof.length ? [flipped(log.issued.inclusion_proof[0]!), ...log.issued.inclusion_proof.slice(1)] : ['AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA='] } } }));
    await badProof.goto(`/verify/${certificateId}`);
    await badProof.locator('#log-result[data-result="invalid"]').waitFor(WAIT);
    assert.equal(await badProof.locator('#log-result').innerText(), 'Transparency log check FAILED: the inclusion proof does not lead to the signed checkpoint. Do not trust this certificate.');

    const otherKey = await newPage();
    const name = log.origin;
    await otherKey.route('**/log/key', (route) => route.fulfill({ status: 200, contentType: 'text/plain', body: `${otherLogKey(name)}\n` }));
    await otherKey.goto(`/verify/${certificateId}`);
    await otherKey.locator('#log-result[data-result="invalid"]').waitFor(WAIT);
    assert.equal(await otherKey.locator('#log-result').innerText(), 'Transparency log check FAILED: the log checkpoint is not signed by the log key. Do not trust this certificate.');

    const missing = await newPage();
    await serveCertificate(missing, (body) => ({ ...body, transparency_log: null }));
    await missing.goto(`/verify/${certificateId}`);
    // Issued moments ago: not yet a failure.
    await missing.locator('#log-result[data-result="pending"]').waitFor(WAIT);
    assert.match(await missing.locator('#log-result').innerText(), /^Not yet in the public transparency log: the certificate was issued \d+ s ago/);
    assert.deepEqual(pageErrors, []);
  });

  it('unknown and malformed ids are the 404 page', async () => {
    const page = await newPage();
    for (const id of ['00000000-0000-4000-8000-000000000000', 'not-a-certificate', '<script>alert(1)</script>']) {
      const res = await page.goto(`/verify/${encodeURIComponent(id)}`);
      assert.equal(res?.status(), 404, id);
    }
  });

  it('a revoked certificate shows Revoked on the page at once and on the badge once announced; a matching file is no longer certified', async () => {
    await revokeCertificateNow(app.services.database.db, app.services.clock, certificateId, 'Layers show <generated> content', TEST_REVIEWER);
    const page = await newPage();
    await page.goto(`/verify/${certificateId}`);
    assert.equal(await page.locator('#certificate-status').getAttribute('data-status'), 'revoked');
    assert.match(await page.locator('#certificate-status').innerText(), /Revoked: this certificate is no longer valid\./);
    assert.match(await page.locator('.certificate-status [role="alert"]').innerText(), /Reason: .*Layers show <generated> content/);
    // The signature itself is still genuine; the file matches but is no longer certified.
    await page.locator('#signature-result[data-result="valid"]').waitFor(WAIT);
    await chooseFile(page, 'harbour.png', bytes);
    await page.locator('#file-result[data-result="revoked"]').waitFor(WAIT);
    // The revocation is in the log too, checked in the browser like the issuance.
    const revokedInLog = await eventually(
      () => fetch(`${base}/v1/certificates/${certificateId}`).then((r) => r.json() as Promise<{ transparency_log: { revoked: { index: number } | null } | null }>),
      (c) => Boolean(c.transparency_log?.revoked),
      'the revocation in the transparency log',
    );
    const logPage = await newPage();
    await logPage.goto(`/verify/${certificateId}`);
    await logPage.locator('#log-result[data-result="valid"]').waitFor(WAIT);
    assert.match(await logPage.locator('#log-result').innerText(), new RegExp(`Its revocation is entry ${revokedInLog.transparency_log!.revoked!.index} of the log\\.$`));
    // The badge is served from memory until the change notification arrives (milliseconds).
    const badge = await eventually(() => fetch(`${base}/verify/${certificateId}/badge.svg`).then((r) => r.text()), (svg) => />Revoked</.test(svg), 'the revoked badge');
    assert.match(badge, />Revoked</);
    await page.screenshot({ path: path.join(SCREENSHOTS, `verify-revoked-${target.name}.png`), fullPage: true });
    assert.deepEqual(pageErrors, []);
  });
});
