/**
 * The review journey end to end, as a newcomer lives it (issue 19 "Done when"), against a real
 * `certdesk serve --demo` (dist/) on PGlite and, when TEST_DATABASE_URL is set, on PostgreSQL:
 *
 * 1. the README's curl line (read from README.md and run by `sh`, only the base URL swapped) uploads
 *    examples/artwork.png and creates an order; its analysis runs inside serve;
 * 2. in Chromium the demo reviewer signs in, claims the order from `/review`, draws an annotation, moves it
 *    with the keyboard and saves (the API's `annotations` show it), writes a Note and presses `Certify`;
 * 3. the certificate verifies offline with `jose` against the JWKS fetched once, and a tampered one fails;
 *    `/verify/{id}` says the signature is valid, the original file matches and another file does not;
 * 4. the order's history shows every event of the journey; a second reviewer's decision is 409 with
 *    nothing applied (while Rita holds the claim, and after the decision);
 * 5. Rita revokes the certificate with a reason on the review page: the API, the verify page and the badge
 *    say Revoked at once.
 *
 * With CERTDESK_SCREENSHOTS_DIR set, the PGlite run saves review-queue.png, review-page.png and
 * verify-page.png there (docs/screenshots/ holds the committed ones); otherwise into its temporary folder.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { compactVerify, createLocalJWKSet, errors as joseErrors, jwtVerify, type JSONWebKeySet } from 'jose';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { packageRoot } from '../../src/paths.js';
import { DEMO_CERTIFIER, DEMO_ORGANIZATIONS, DEMO_PRIMARY } from '../../src/demo/index.js';
import { eventually } from '../helpers/certificates.js';
import { assertDrawsJapanese, launchChromium } from '../helpers/chromium.js';
import { freePort } from '../helpers/free-port.js';
import { ServedProcess } from '../faults/served-process.js';
import { createThrowawayDatabase } from '../helpers/database.js';

const run = promisify(execFile);
/** Generous: a loaded 2-core machine runs the analysis, Chromium and serve at once. */
const DEADLINE_MS = 120_000;
const WAIT = { timeout: 60_000 };
const ARTWORK = path.join(packageRoot, 'examples', 'artwork.png');
const OTHER_FILE = path.join(packageRoot, 'examples', 'layered.psd');
const RITA = DEMO_CERTIFIER.reviewer;
// A second reviewer of another organization than the order's (Acme): Northwind's administrator.
const NORTHWIND = DEMO_ORGANIZATIONS[1]!;
const REX = { email: NORTHWIND.admin.email, password: NORTHWIND.admin.password };
const NOTE = 'Compared every region with the sketch layers: hand-made. <script>window.__pwned = 1</script>';
const MASTER_KEY = 'journey-test-master-key-0123456789abcdef';
const REASON = 'The customer licensed this picture; it is not their own work. "<b>quoted</b>"';

interface Target {
  name: 'pglite' | 'postgres';
  screenshots: boolean;
}

const targets: Target[] = [{ name: 'pglite', screenshots: true }];
if (process.env.TEST_DATABASE_URL) targets.push({ name: 'postgres', screenshots: false });

/** The README's Quick start line that uploads examples/artwork.png and creates an order. */
function readmeUploadLine(): string {
  const readme = readFileSync(path.join(packageRoot, 'README.md'), 'utf8');
  const line = readme.split('\n').find((l) => l.startsWith('TOKEN=$(curl') && l.includes('-F file=@examples/artwork.png'));
  assert.ok(line, 'README.md has the curl line that uploads examples/artwork.png');
  return line;
}

async function until<T>(what: string, probe: () => Promise<T | null | undefined | false>): Promise<T> {
  const deadline = Date.now() + DEADLINE_MS;
  let last: unknown = null;
  for (;;) {
    try {
      const value = await probe();
      if (value) return value;
    } catch (err) {
      last = err;
    }
    if (Date.now() > deadline) throw new Error(`${what}: not within ${DEADLINE_MS / 1000} s${last ? ` (${String(last)})` : ''}`);
    await new Promise((r) => setTimeout(r, 250)); // polling interval, not a wait for an outcome
  }
}

interface HistoryEvent {
  type: string;
  actor: string | null;
  from_state: string | null;
  to_state: string | null;
  note: string | null;
  changes: Record<string, { before: unknown; after: unknown }> | null;
}

for (const target of targets) {
  describe(`review journey through serve --demo on ${target.name}`, () => {
    let dir: string;
    let server: ServedProcess | null = null;
    let browser: Browser | null = null;
    let base: string;
    let token: string;
    let dropDatabase = async () => {};
    let databaseUrl = '';
    let shots: string;
    const contexts: BrowserContext[] = [];
    const pageErrors: string[] = [];

    before(async () => {
      dir = mkdtempSync(path.join(os.tmpdir(), 'certdesk-journey-'));
      shots = target.screenshots && process.env.CERTDESK_SCREENSHOTS_DIR ? path.resolve(process.env.CERTDESK_SCREENSHOTS_DIR) : path.join(dir, 'screenshots');
      mkdirSync(shots, { recursive: true });
      if (target.name === 'postgres') {
        const database = await createThrowawayDatabase(process.env.TEST_DATABASE_URL!, 'j');
        databaseUrl = database.url;
        dropDatabase = database.drop;
      }
      const port = await freePort();
      base = `http://127.0.0.1:${port}`;
      server = await ServedProcess.start(
        {
          DATA_DIR: dir,
          DATABASE_URL: databaseUrl,
          PORT: String(port),
          PUBLIC_BASE_URL: base,
          LOG_LEVEL: 'warn',
          MASTER_KEY,
          WORKER_CONCURRENCY: '2',
        },
        ['--demo'],
      );
      const res = await fetch(`${base}/oauth2/token`, {
        method: 'POST',
        headers: {
          authorization: `Basic ${Buffer.from(`${DEMO_PRIMARY.client.client_id}:${DEMO_PRIMARY.client.client_secret}`).toString('base64')}`,
          'content-type': 'application/x-www-form-urlencoded',
        },
        body: 'grant_type=client_credentials',
      });
      assert.equal(res.status, 200);
      token = ((await res.json()) as { access_token: string }).access_token;
      browser = await launchChromium();
    });

    after(async () => {
      for (const c of contexts) await c.close().catch(() => undefined);
      await browser?.close();
      await server?.stop();
      await dropDatabase();
      rmSync(dir, { recursive: true, force: true });
    });

    const api = async <T>(url: string): Promise<{ status: number; body: T; headers: Headers }> => {
      const res = await fetch(`${base}${url}`, { headers: { authorization: `Bearer ${token}` } });
      return { status: res.status, body: (await res.json()) as T, headers: res.headers };
    };
    const history = async (orderId: string) => (await api<{ events: HistoryEvent[] }>(`/v1/orders/${orderId}/history`)).body.events;

    async function signedIn(email: string, password: string): Promise<Page> {
      const context = await browser!.newContext({ baseURL: base, locale: 'en-US', viewport: { width: 1280, height: 860 } });
      contexts.push(context);
      const page = await context.newPage();
      page.on('pageerror', (e) => pageErrors.push(`${page.url()}: ${e.message}`));
      page.on('console', (m) => {
        if (m.type() === 'error' && /Content Security Policy|Refused/.test(m.text())) pageErrors.push(`${page.url()}: ${m.text()}`);
      });
      await page.goto('/sign-in?lang=en');
      await page.getByLabel('E-mail').fill(email);
      await page.getByLabel('Password').fill(password);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.waitForURL((url) => !url.pathname.startsWith('/sign-in'), WAIT);
      return page;
    }

    /** A decision form posted by `page`'s session (its CSRF token from a page), as a second browser tab would. */
    async function postDecision(page: Page, orderId: string, claimId: string): Promise<number> {
      await page.goto('/orders');
      const csrf = await page.locator('input[name="_csrf"]').first().getAttribute('value');
      const res = await page.request.post(`/review/orders/${orderId}/decision`, {
        form: { _csrf: csrf ?? '', claim_id: claimId, decision: 'refuse', note: 'I disagree' },
        maxRedirects: 0,
      });
      return res.status();
    }

    it('curl creates an order, a reviewer edits and certifies it, the certificate verifies, then is revoked', async () => {
      // 1. The README's curl line, run as a newcomer runs it (only the base URL differs).
      const line = readmeUploadLine().replaceAll('http://localhost:8080', base);
      const { stdout } = await run('sh', ['-c', line], { cwd: packageRoot, timeout: DEADLINE_MS });
      const created = JSON.parse(stdout) as { order_id: string; order_state: string; asset_name: string };
      assert.equal(created.order_state, 'In Progress');
      assert.equal(created.asset_name, 'artwork.png');
      const orderId = created.order_id;

      // Its analysis finishes inside serve (no detection service in the demo: the order waits for a person).
      await until('the analysis finished', async () => (await history(orderId)).some((e) => e.type === 'analysis_completed'));
      const analysed = (await api<{ order_state: string; analysis_list: Array<{ analysis_type: string }> }>(`/v1/orders/${orderId}`)).body;
      assert.equal(analysed.order_state, 'In Progress');
      assert.ok(analysed.analysis_list.some((a) => a.analysis_type === 'file_type'), JSON.stringify(analysed.analysis_list));

      // 2. Rita signs in and finds the order in the queue (it enters once no analysis job is left).
      const rita = await signedIn(RITA.email, RITA.password);
      const row = rita.locator(`tr[data-order-id="${orderId}"]`);
      await until('the order is in the review queue', async () => {
        await rita.goto('/review');
        return (await row.count()) === 1;
      });
      assert.match(await row.innerText(), /My artwork/);
      // The queue as it opens: heading, filters with counts, the oldest orders first (the demo's own orders).
      // The docs show the pages as users see them: the language switcher's 日本語 as text, not boxes.
      await assertDrawsJapanese(rita);
      await rita.screenshot({ path: path.join(shots, 'review-queue.png') });
      await row.getByRole('link').click();
      await rita.waitForURL(`**/review/orders/${orderId}`, WAIT);
      await rita.locator('[data-claim="yours"]').waitFor(WAIT);
      await rita.locator('[data-editor-ready]').waitFor(WAIT);
      await rita.waitForFunction(() => {
        const img = document.querySelector<HTMLImageElement>('.editor-image');
        return img !== null && img.complete && img.naturalWidth > 0;
      }, undefined, WAIT);

      // A second reviewer, granted with the operator command while serve runs (it goes through serve).
      const env = { ...process.env, CERTDESK_ENV: 'test', DATA_DIR: dir, DATABASE_URL: databaseUrl, MASTER_KEY };
      const granted = await run(process.execPath, [path.join(packageRoot, 'bin', 'certdesk'), 'reviewer', 'grant', REX.email], { cwd: packageRoot, env, timeout: DEADLINE_MS });
      assert.match(granted.stdout + granted.stderr, new RegExp(REX.email.replace(/\./g, '\\.')));
      const rex = await signedIn(REX.email, REX.password);
      await rex.goto(`/review/orders/${orderId}`);
      assert.match(await rex.locator('[data-claim="other"]').innerText(), /Being reviewed by Rita Reviewer/);
      assert.equal(await rex.locator('[data-decision-form]').count(), 0, 'no decision form for someone else’s claim');
      const ritaClaim = (await rita.locator('[data-review-root]').getAttribute('data-claim-id'))!;
      assert.equal(await postDecision(rex, orderId, ritaClaim), 409, 'a decision on Rita’s claim');
      assert.equal((await api<{ order_state: string }>(`/v1/orders/${orderId}`)).body.order_state, 'In Progress', 'nothing applied');

      // Rita draws a rectangle with the mouse, writes its body, moves it with the keyboard and saves.
      await rita.keyboard.press('r');
      assert.equal(await rita.getByRole('button', { name: /^Rectangle/ }).getAttribute('aria-pressed'), 'true');
      // The picture sits below the decision form: into view before drawing on it.
      await rita.locator('[data-editor-overlay]').scrollIntoViewIfNeeded();
      const box = (await rita.locator('[data-editor-overlay]').boundingBox())!;
      await rita.mouse.move(box.x + box.width * 0.3, box.y + box.height * 0.3);
      await rita.mouse.down();
      await rita.mouse.move(box.x + box.width * 0.45, box.y + box.height * 0.45, { steps: 4 });
      await rita.mouse.move(box.x + box.width * 0.6, box.y + box.height * 0.65, { steps: 4 });
      await rita.mouse.up();
      await rita.locator('[data-editor-overlay] .annotation.selected[data-shape="RECTANGLE"]').waitFor(WAIT);
      await rita.getByLabel('Body', { exact: true }).fill('Brush texture checked <img src=x onerror="window.__pwned = 2">');
      await rita.locator('[data-editor-overlay] .annotation.selected').focus();
      for (const key of ['ArrowRight', 'ArrowRight', 'ArrowDown']) await rita.keyboard.press(key);
      await rita.getByRole('button', { name: /^Save edits/ }).click();
      await rita.locator('[data-review-root][data-editor-saved="1"]').waitFor({ state: 'attached', ...WAIT });
      type Geometry = { bounds: { minX: number; minY: number; maxX: number; maxY: number }; x: number; y: number; w: number; h: number };
      const saved = (await api<{ annotations: Array<{ bodies: Array<{ value: string }>; target: { selector: { type: string; geometry: Geometry } } }> }>(`/v1/orders/${orderId}`)).body.annotations;
      assert.equal(saved.length, 1);
      assert.equal(saved[0]!.bodies[0]!.value, 'Brush texture checked <img src=x onerror="window.__pwned = 2">');
      const g = saved[0]!.target.selector.geometry;
      assert.equal(saved[0]!.target.selector.type, 'RECTANGLE');
      // Drawn from 30%,30% and moved two steps right, one down (1% each).
      assert.ok(Math.abs(g.bounds.minX - 0.32) < 0.02 && Math.abs(g.bounds.minY - 0.31) < 0.02, JSON.stringify(g));
      assert.ok(Math.abs(g.bounds.maxX - 0.62) < 0.02 && Math.abs(g.bounds.maxY - 0.66) < 0.02, JSON.stringify(g));
      assert.deepEqual([g.x, g.y], [g.bounds.minX, g.bounds.minY]);
      await rita.getByRole('textbox', { name: 'Note' }).fill(NOTE);
      // The page's top: the claim, the decision form with its Note, the editor with the saved rectangle.
      await rita.evaluate(() => window.scrollTo(0, 0));
      await rita.screenshot({ path: path.join(shots, 'review-page.png'), fullPage: true, clip: { x: 0, y: 0, width: 1280, height: 1450 } });

      // Certify.
      await rita.getByRole('button', { name: 'Certify', exact: true }).click();
      await rita.getByText('The order is now Human Certified.').waitFor(WAIT);
      const order = (await api<{ order_state: string; reviewed_by: string }>(`/v1/orders/${orderId}`)).body;
      assert.deepEqual([order.order_state, order.reviewed_by], ['Human Certified', RITA.email]);
      assert.equal(await postDecision(rex, orderId, ritaClaim), 409, 'a decision after the order moved');

      // 3. The certificate verifies offline against the JWKS fetched once; a tampered one does not.
      const certificate = await api<{ certificate_id: string; status: string; jws: string; asset_sha256: string; verify_url: string }>(`/v1/orders/${orderId}/certificate`);
      assert.equal(certificate.status, 200);
      const cert = certificate.body;
      assert.equal(cert.status, 'valid');
      const jwks = (await (await fetch(`${base}/.well-known/jwks.json`)).json()) as JSONWebKeySet;
      const keys = createLocalJWKSet(jwks);
      const sha256 = createHash('sha256').update(readFileSync(ARTWORK)).digest('hex');
      const { payload, protectedHeader } = await jwtVerify(cert.jws, keys, { issuer: base, typ: 'certdesk-certificate+jwt', algorithms: ['ES256'] });
      assert.equal(protectedHeader.alg, 'ES256');
      assert.deepEqual([payload.jti, payload.sub, payload.asset_name, payload.asset_sha256, payload.org_name, payload.verify_url], [
        cert.certificate_id,
        orderId,
        'artwork.png',
        sha256,
        DEMO_PRIMARY.name,
        `${base}/verify/${cert.certificate_id}`,
      ]);
      await compactVerify(cert.jws, keys);
      const [header, body, signature] = cert.jws.split('.') as [string, string, string];
      const forged = Buffer.from(JSON.stringify({ ...payload, asset_sha256: createHash('sha256').update('another file').digest('hex') })).toString('base64url');
      await assert.rejects(compactVerify(`${header}.${forged}.${signature}`, keys), joseErrors.JWSSignatureVerificationFailed);
      const flipped = `${signature.slice(0, 10)}${signature[10] === 'A' ? 'B' : 'A'}${signature.slice(11)}`;
      await assert.rejects(jwtVerify(`${header}.${body}.${flipped}`, keys), joseErrors.JWSSignatureVerificationFailed);

      // The verify page: signature valid in the browser, the original matches, another file does not.
      const visitor = await browser!.newContext({ baseURL: base, locale: 'en-US', viewport: { width: 1280, height: 860 } });
      contexts.push(visitor);
      const verify = await visitor.newPage();
      verify.on('pageerror', (e) => pageErrors.push(`${verify.url()}: ${e.message}`));
      await verify.goto(`/verify/${cert.certificate_id}`);
      await verify.locator('#signature-result[data-result="valid"]').waitFor(WAIT);
      assert.match(await verify.locator('#signature-result').innerText(), /Signature valid/);
      assert.equal(await verify.locator('.certificate-verdict').getAttribute('data-status'), 'valid');
      await verify.locator('#file-to-check').setInputFiles(ARTWORK);
      await verify.locator('#file-result[data-result="match"]').waitFor(WAIT);
      assert.match(await verify.locator('#file-result').innerText(), /Match: artwork\.png is the certified file/);
      await verify.screenshot({ path: path.join(shots, 'verify-page.png') });
      await verify.locator('#file-to-check').setInputFiles(OTHER_FILE);
      await verify.locator('#file-result[data-result="mismatch"]').waitFor(WAIT);
      assert.match(await verify.locator('#file-result').innerText(), /No match: layered\.psd is NOT the certified file/);

      // 4. The history tells the whole journey, reviewers by e-mail; Rex's attempts left nothing.
      const events = await history(orderId);
      const summary = events.map((e) => [e.type, e.from_state, e.to_state]);
      assert.deepEqual(summary[0], ['created', null, 'In Progress']);
      const types = events.map((e) => e.type);
      for (const type of ['analysis_completed', 'claimed', 'annotation_changed', 'state_changed', 'certificate_issued']) assert.ok(types.includes(type), `${type} in ${types.join(', ')}`);
      assert.ok(types.indexOf('analysis_completed') < types.indexOf('claimed') && types.indexOf('claimed') < types.indexOf('annotation_changed'), types.join(', '));
      const decision = events.find((e) => e.type === 'state_changed' && e.to_state === 'Human Certified')!;
      assert.deepEqual([decision.from_state, decision.actor, decision.note], ['In Progress', RITA.email, NOTE]);
      assert.equal(types.at(-1), 'certificate_issued');
      assert.deepEqual(events.filter((e) => e.type === 'claimed').map((e) => e.actor), [RITA.email]);
      assert.ok(events.every((e) => e.actor !== REX.email), 'nothing by the second reviewer');
      assert.equal(events.filter((e) => e.type === 'state_changed').length, 1);
      assert.equal(events.find((e) => e.type === 'annotation_changed')!.actor, RITA.email);

      // 5. Rita revokes with a reason on the review page; everything says Revoked at once.
      // From the decision's page back to /review: "Recently certified" leads to the order's review page.
      assert.equal(await rita.getByRole('link', { name: 'Open the order’s review page' }).getAttribute('href'), `/review/orders/${orderId}`);
      await rita.getByRole('link', { name: 'Review', exact: true }).click();
      await rita.locator(`[data-recent-certificates] tr[data-certificate-id="${cert.certificate_id}"] a`).click();
      await rita.waitForURL(`**/review/orders/${orderId}`, WAIT);
      await rita.locator('[data-certificate-status="valid"]').waitFor(WAIT);
      await rita.getByLabel('Reason for revoking').fill(REASON);
      await rita.getByRole('button', { name: 'Revoke', exact: true }).click();
      await rita.locator('[data-certificate-status="revoked"]').waitFor(WAIT);
      assert.equal(await rita.locator('[data-revocation-reason]').innerText(), REASON);
      assert.equal(await rita.locator('[data-revoke-form]').count(), 0, 'final: no Revoke control any more');
      const revoked = (await api<{ status: string; revocation_reason: string }>(`/v1/orders/${orderId}/certificate`)).body;
      assert.deepEqual([revoked.status, revoked.revocation_reason], ['revoked', REASON]);
      // Public reads are kept in memory until PostgreSQL announces the change (milliseconds).
      const publicRead = await eventually(
        async () => ((await (await fetch(`${base}/v1/certificates/${cert.certificate_id}`)).json()) as { status: string }).status,
        (status) => status === 'revoked',
        'the revocation on the public API',
      );
      assert.equal(publicRead, 'revoked');
      await verify.reload();
      assert.equal(await verify.locator('.certificate-verdict').getAttribute('data-status'), 'revoked');
      assert.match(await verify.locator('.certificate-status').innerText(), /Reason: .*The customer licensed this picture/);
      await verify.locator('#signature-result[data-result="valid"]').waitFor(WAIT);
      await verify.locator('#file-to-check').setInputFiles(ARTWORK);
      await verify.locator('#file-result[data-result="revoked"]').waitFor(WAIT);
      // The badge as an embedding page's browser loads it (revalidated on every use: no-cache + ETag).
      const badge = await eventually(
        async () => {
          const res = await verify.request.get(`/verify/${cert.certificate_id}/badge.svg`);
          return { svg: await res.text(), cacheControl: res.headers()['cache-control'] ?? '' };
        },
        ({ svg }) => />Revoked<\/text>/.test(svg),
        'the revocation on the badge',
      );
      assert.match(badge.svg, />Revoked<\/text>/);
      assert.match(badge.cacheControl, /no-cache/);
      const last = (await history(orderId)).at(-1)!;
      assert.deepEqual([last.type, last.actor, last.note], ['certificate_revoked', RITA.email, REASON]);
      assert.equal((await api<{ order_state: string }>(`/v1/orders/${orderId}`)).body.order_state, 'Human Certified', 'the order keeps its state');

      // Nothing typed ran anywhere; no script error, no CSP refusal.
      assert.equal(await rita.evaluate(() => (window as unknown as { __pwned?: number }).__pwned), undefined);
      assert.deepEqual(pageErrors, []);
    });

  });
}
