/**
 * `certdesk-client verify FILE` and `certificate ORDER_ID --download PATH` (the built bin) against the
 * served application. `verify` reads the file's Content Credentials with the C2PA reference
 * implementation in Node (WebAssembly from the installed package), checks the certificate's JWS against
 * the JWKS and asks the live status: exit 0 only for an intact file that certdesk signed with a valid
 * certificate; one line on stderr for every other outcome. Public routes only: no client credentials.
 *
 * The certified files are the service's own: an order certified, the Content Credentials job run, the
 * file downloaded from `GET /v1/orders/{id}/certificate/file`, checked against the trust anchors the
 * service publishes. Someone else's and forged manifests are made with the service's C2PA thread and a
 * throw-away chain (test/helpers/c2pa-fixtures.ts).
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { revokeCertificateNow } from '../../src/domain/certificates/index.js';
import { obtainToken } from '../http/api-harness.js';
import { makeSigningChain, signAsset, type TestSigningChain } from '../helpers/c2pa-fixtures.js';
import { certifyOrder, createOrderWithAsset, eventually, TEST_REVIEWER } from '../helpers/certificates.js';
import { runContentCredentialsJobs } from '../helpers/content-credentials.js';
import { databaseTargets } from '../helpers/database.js';
import { USERS } from '../helpers/fixtures.js';
import { pngBytes } from '../helpers/images.js';
import { startServedApi, type ServedApi } from './served-api.js';

const BIN = path.resolve('clients/typescript/dist/cli/certdesk-client.js');

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

function run(args: string[], env: Record<string, string>): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], { env: { PATH: process.env.PATH ?? '', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c) => (stdout += String(c)));
    child.stderr.on('data', (c) => (stderr += String(c)));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr }));
  });
}

/** The failure lines of a run: exactly one is expected for every non-zero exit. */
const failureLines = (r: Run) => r.stderr.trimEnd().split('\n').filter((l) => l.startsWith('certdesk-client:'));

/** The PNG with one byte of its first IDAT chunk's data flipped. */
function flipImageByte(png: Buffer): Buffer {
  const idat = png.indexOf('IDAT', 8, 'latin1');
  const out = Buffer.from(png);
  out[idat + 6] = out[idat + 6]! ^ 0x01;
  return out;
}

for (const target of databaseTargets()) {
  describe(`certdesk-client and Content Credentials on ${target.name}`, () => {
    let served: ServedApi;
    let dir: string;
    let stranger: TestSigningChain;
    let anchors: string;
    let env: Record<string, string>;
    let token: string;

    /** Certifies an order of `bytes`, runs the Content Credentials job and saves the service's credentialed file as `name`. */
    async function credentialedFile(bytes: Buffer, name: string): Promise<{ file: string; certificateId: string; orderId: string; assertion: Record<string, unknown> }> {
      const orderId = await createOrderWithAsset(served.app, token, bytes, { name });
      const row = await certifyOrder(served.app, orderId);
      await runContentCredentialsJobs(served.app);
      const res = await served.app.inject({ url: `/v1/orders/${orderId}/certificate/file`, headers: { authorization: `Bearer ${token}` } });
      assert.equal(res.statusCode, 200, res.body.slice(0, 300));
      const file = path.join(dir, name);
      writeFileSync(file, res.rawPayload);
      const base = served.serverUrl;
      const assertion = { certificate_id: row.certificate_id, issuer: base, verify_url: `${base}/verify/${row.certificate_id}`, status_url: `${base}/v1/certificates/${row.certificate_id}`, asset_sha256: row.asset_sha256, jws: row.jws };
      return { file, certificateId: row.certificate_id, orderId, assertion };
    }

    before(async () => {
      assert.ok(existsSync(BIN), `${BIN} is missing: run \`npm run build\``);
      served = await startServedApi(target);
      dir = mkdtempSync(path.join(os.tmpdir(), 'certdesk-client-c2pa-'));
      stranger = await makeSigningChain('Other Studio');
      anchors = path.join(dir, 'anchors.pem');
      // A pinned copy of the anchors the service publishes (what --trust-anchors is for).
      writeFileSync(anchors, await (await fetch(`${served.serverUrl}/.well-known/c2pa-trust-anchors.pem`)).text());
      // The base URL alone: verify needs no client credentials.
      env = { CERTDESK_BASE_URL: served.serverUrl, CERTDESK_CONFIG_DIR: dir };
      token = await obtainToken(served.app, USERS.admin.clientId, USERS.admin.clientSecret);
    });

    after(async () => {
      await served?.close();
      if (dir) rmSync(dir, { recursive: true, force: true });
    });

    it('verify: an intact credentialed file with a valid certificate exits 0 and says who certified it', async () => {
      const { file, certificateId } = await credentialedFile(pngBytes(30, 20), 'harbour.png');
      const r = await run(['verify', file, '--json'], env);
      assert.equal(r.code, 0, r.stderr);
      const report = JSON.parse(r.stdout) as Record<string, unknown>;
      assert.equal(report.content_credentials, 'certdesk');
      assert.equal(report.intact, true);
      assert.equal(report.signed_by_certdesk, true);
      assert.ok(typeof report.signer === 'string' && report.signer.length > 0, 'the signer is named');
      assert.equal(report.claim_generator?.toString().startsWith('certdesk'), true);
      assert.equal(report.certificate_id, certificateId);
      assert.equal(report.signature, 'valid');
      assert.equal(report.status, 'valid');
      assert.equal(report.organization, 'Acme Studio');
      assert.deepEqual(report.validation_failures, []);
      // Checked against the /log/key the service serves: proven, or pending while the fresh certificate is being sequenced.
      assert.match(String(report.transparency_log), /^(proven|pending)/);
      assert.match(r.stderr, /^verified: .*harbour\.png is intact, certified by Acme Studio/m);
      // The same with the anchors pinned from a file.
      const pinned = await run(['verify', file, '--trust-anchors', anchors, '--json'], env);
      assert.equal(pinned.code, 0, pinned.stderr);
    });

    it('verify: altered, plain, someone else\'s, forged and revoked files exit 9 with one line each', async () => {
      const { file, certificateId, assertion } = await credentialedFile(pngBytes(24, 18), 'quay.png');
      const altered = path.join(dir, 'quay-edited.png');
      const bytes = (await import('node:fs')).readFileSync(file);
      writeFileSync(altered, flipImageByte(bytes));
      const plain = path.join(dir, 'plain.png');
      writeFileSync(plain, pngBytes(7, 7));
      const other = path.join(dir, 'other.png');
      writeFileSync(other, await signAsset(pngBytes(8, 8), 'image/png', { chain: stranger, claimGenerator: 'Other Editor' }));
      // The genuine assertion (its JWS verifies) in a manifest someone else signed.
      const forged = path.join(dir, 'forged.png');
      writeFileSync(forged, await signAsset(pngBytes(9, 9), 'image/png', { chain: stranger, claimGenerator: 'Forger', assertions: { 'org.certdesk.certificate': assertion } }));

      const cases: Array<[string, RegExp]> = [
        [altered, /quay-edited\.png was altered after certdesk signed it \(assertion\.dataHash\.mismatch\)/],
        [plain, /plain\.png holds no Content Credentials/],
        [other, /other\.png holds no certdesk certificate: its Content Credentials were signed by Other Studio, made with Other Editor 1\.0/],
        [forged, /forged\.png claims a certdesk certificate, but its Content Credentials were not signed by this certdesk \(signer: Other Studio\)/],
      ];
      for (const [input, expected] of cases) {
        const r = await run(['verify', input, '--json'], env);
        assert.equal(r.code, 9, `${input}: ${r.stderr}`);
        assert.deepEqual(failureLines(r).length, 1, r.stderr);
        assert.match(failureLines(r)[0]!, expected);
        assert.ok(JSON.parse(r.stdout), 'the report is printed too');
      }

      // The same file read with trust anchors that are not its signer's: not certdesk's signature.
      const foreignAnchors = path.join(dir, 'foreign.pem');
      writeFileSync(foreignAnchors, stranger.rootPem);
      const untrusted = await run(['verify', file, '--trust-anchors', foreignAnchors], env);
      assert.equal(untrusted.code, 9, untrusted.stderr);
      assert.match(failureLines(untrusted)[0]!, /claims a certdesk certificate, but its Content Credentials were not signed by this certdesk/);

      await revokeCertificateNow(served.app.services.database.db, served.app.services.clock, certificateId, 'Generated layers found', TEST_REVIEWER);
      await eventually(() => fetch(`${served.serverUrl}/v1/certificates/${certificateId}`).then((r) => r.json() as Promise<{ status: string }>), (c) => c.status === 'revoked', 'the revocation');
      const revoked = await run(['verify', file, '--json'], env);
      assert.equal(revoked.code, 9, revoked.stderr);
      assert.equal((JSON.parse(revoked.stdout) as { status: string }).status, 'revoked');
      assert.match(failureLines(revoked)[0]!, /was revoked: Generated layers found/);
    });

    it('verify: usage and network failures exit non-zero with one line', async () => {
      const noBase = await run(['verify', path.join(dir, 'plain.png')], { CERTDESK_CONFIG_DIR: dir });
      assert.equal(noBase.code, 2, noBase.stderr);
      assert.equal(failureLines(noBase).length, 1, noBase.stderr);
      const missing = await run(['verify', path.join(dir, 'no-such-file.png'), '--trust-anchors', anchors], env);
      assert.notEqual(missing.code, 0);
      assert.equal(failureLines(missing).length, 1, missing.stderr);
      const unreachable = await run(['verify', path.join(dir, 'plain.png'), '--base-url', 'http://127.0.0.1:1'], { ...env, CERTDESK_TIMEOUT_MS: '5000' });
      assert.equal(unreachable.code, 8, unreachable.stderr);
      assert.equal(failureLines(unreachable).length, 1, unreachable.stderr);
    });

    it('certificate --download: waits while the file is being made (409 with Retry-After), fails with one line on 409 for an unsupported format and on 410', async () => {
      const orderId = await createOrderWithAsset(served.app, token, pngBytes(6, 6), { name: 'pending.png' });
      await certifyOrder(served.app, orderId);
      const filePath = `/v1/orders/${orderId}/certificate/file`;
      const creds = { ...env, CERTDESK_CLIENT_ID: USERS.admin.clientId, CERTDESK_CLIENT_SECRET: USERS.admin.clientSecret, CERTDESK_BASE_URL: served.proxy.url };
      const out = path.join(dir, 'downloaded.png');
      // Being made, then revoked meanwhile: asked twice, then 410.
      served.proxy.fault = (req, n) =>
        req.path === filePath ? (n === 1 ? { status: 409, headers: { 'retry-after': '1' }, body: { detail: 'The credentialed file is being made.' } } : { status: 410, body: { detail: 'The certificate was revoked.' } }) : 'pass';
      const gone = await run(['certificate', orderId, '--download', out, '--json'], creds);
      assert.equal(served.proxy.count('GET', filePath), 2);
      assert.equal(gone.code, 6, gone.stderr);
      assert.deepEqual(failureLines(gone), ['certdesk-client: 410 The certificate was revoked.']);
      assert.equal(existsSync(out), false, 'no file is written');
      // A format that cannot carry Content Credentials: 409 without Retry-After, not waited for.
      served.proxy.fault = (req) => (req.path === filePath ? { status: 409, body: { detail: 'PSD files cannot carry Content Credentials.' } } : 'pass');
      const unsupported = await run(['certificate', orderId, '--download', out], creds);
      assert.equal(served.proxy.count('GET', filePath), 3, 'asked once more');
      assert.equal(unsupported.code, 6, unsupported.stderr);
      assert.deepEqual(failureLines(unsupported), ['certdesk-client: 409 PSD files cannot carry Content Credentials.']);
      served.proxy.fault = () => 'pass';
    });

    it('certificate --download: waits while the service makes the file, then saves it; the saved file verifies', async () => {
      const orderId = await createOrderWithAsset(served.app, token, pngBytes(26, 19), { name: 'harbour.png' });
      await certifyOrder(served.app, orderId);
      // Through the test's proxy, to see the CLI ask while the file is pending.
      const creds = { ...env, CERTDESK_BASE_URL: served.proxy.url, CERTDESK_CLIENT_ID: USERS.admin.clientId, CERTDESK_CLIENT_SECRET: USERS.admin.clientSecret };
      const filePath = `/v1/orders/${orderId}/certificate/file`;
      const before = served.proxy.count('GET', filePath);
      const out = path.join(dir, 'harbour-credentialed.png');
      const download = run(['certificate', orderId, '--download', out, '--json'], creds);
      // The CLI got its 409 with Retry-After (the job has not run); now the job runs, in this process.
      await eventually(async () => served.proxy.count('GET', filePath), (n) => n > before, 'the first request for the file', 60_000);
      await runContentCredentialsJobs(served.app);
      const downloaded = await download;
      assert.equal(downloaded.code, 0, downloaded.stderr);
      assert.ok(served.proxy.count('GET', filePath) >= before + 2, 'asked again after the 409');
      assert.match(downloaded.stderr, /saved the credentialed file to .*harbour-credentialed\.png \(\d+ bytes\)/);
      const api = await served.app.inject({ url: `/v1/orders/${orderId}/certificate/file`, headers: { authorization: `Bearer ${token}` } });
      assert.deepEqual((await import('node:fs')).readFileSync(out), api.rawPayload);
      assert.equal(existsSync(`${out}.part`), false);
      const verified = await run(['verify', out, '--json'], env);
      assert.equal(verified.code, 0, verified.stderr);
    });
  });
}
