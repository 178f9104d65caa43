/**
 * Content Credentials, writing side (DECISIONS 13, docs/content-credentials.md), black box: a PNG and a
 * JPEG certified through the real review routes get a credentialed file from the job queue, served by
 * `GET /v1/orders/{id}/certificate/file`, which the C2PA reference implementation (c2pa-rs as
 * WebAssembly) validates as Trusted given the service's `/.well-known/c2pa-trust-anchors.pem`, with the
 * `org.certdesk.certificate` assertion whose JWS verifies against the JWKS; a flipped byte is reported
 * altered; Content Credentials the upload carried stay as its ingredient (also when they no longer
 * validate); a PSD is `unsupported` (409); a revoked certificate's file is 410. PGlite always,
 * PostgreSQL when TEST_DATABASE_URL is set.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { after, before, it } from 'node:test';
import { createLocalJWKSet, jwtVerify } from 'jose';
import { describeOnEachDatabase } from '../helpers/database.js';
import { jpegBytes, pngBytes, tiffBytes, webpBytes } from '../helpers/images.js';
import {
  certifyWithAsset,
  credentialAs,
  downloadCredentialedFile,
  otherParty,
  readManifestStore,
  runContentCredentialsJobs,
  type ManifestStore,
} from '../helpers/content-credentials.js';
import { advanceJobTime } from '../helpers/job-time.js';
import { eventually } from '../helpers/certificates.js';
import { get, openReviewWorld, postForm, type ReviewWorld } from '../review/review-world.js';

const ISSUER = 'https://api.certdesk.test';
const sha256 = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');

function activeManifest(store: ManifestStore) {
  const manifest = store.manifests[store.active_manifest];
  assert.ok(manifest, 'an active manifest');
  return manifest;
}

function certdeskAssertion(store: ManifestStore): Record<string, unknown> {
  const found = activeManifest(store).assertions.find((a) => a.label === 'org.certdesk.certificate');
  assert.ok(found, 'the org.certdesk.certificate assertion');
  return found.data;
}

describeOnEachDatabase('content credentials', (getDb) => {
  let w: ReviewWorld;
  let anchors: string;
  const uploads = new Map<string, { bytes: Buffer; type: string }>();

  before(async () => {
    w = await openReviewWorld(getDb(), 8);
    const camera = await otherParty('Other Camera Co');
    const cameraPng = await credentialAs(camera, pngBytes(40, 30), 'image/png', 'from-camera.png');
    // The same camera file with a byte of its image changed afterwards: its own manifest no longer validates.
    const brokenCameraPng = Buffer.from(cameraPng);
    brokenCameraPng[brokenCameraPng.length - 20]! ^= 0xff;
    uploads.set('q1', { bytes: pngBytes(64, 48), type: 'image/png' });
    uploads.set('q2', { bytes: await jpegBytes(64, 48), type: 'image/jpeg' });
    uploads.set('q3', { bytes: readFileSync(new URL('../../examples/layered.psd', import.meta.url)), type: 'image/vnd.adobe.photoshop' });
    uploads.set('q4', { bytes: cameraPng, type: 'image/png' });
    uploads.set('q5', { bytes: brokenCameraPng, type: 'image/png' });
    uploads.set('q0', { bytes: await webpBytes(), type: 'image/webp' });
    uploads.set('q7', { bytes: await tiffBytes(), type: 'image/tiff' });
    for (const [orderId, upload] of uploads) await certifyWithAsset(w, orderId, upload.bytes, upload.type);
  });
  after(async () => {
    await w?.close();
  });

  const api = (url: string) => w.app.inject({ method: 'GET', url, headers: { authorization: `Bearer ${w.customerToken}` } });

  it('while the file is being made: the certificate says pending and the file route 409 with Retry-After', async () => {
    const certificate = (await api('/v1/orders/q1/certificate')).json() as { certificate_id: string; content_credentials: string };
    assert.equal(certificate.content_credentials, 'pending');
    const res = await downloadCredentialedFile(w.app, w.customerToken, 'q1');
    assert.equal(res.statusCode, 409);
    assert.match(res.headers['retry-after'] as string, /^\d+$/);
    assert.match((res.json() as { detail: string }).detail, /still being made/);
    const publicCertificate = (await w.app.inject({ url: `/v1/certificates/${certificate.certificate_id}` })).json() as { content_credentials: string };
    assert.equal(publicCertificate.content_credentials, 'pending');
    // No certificate: 404 (q6 is In Progress).
    assert.equal((await downloadCredentialedFile(w.app, w.customerToken, 'q6')).statusCode, 404);
  });

  it('the job makes the files; trust anchors are published, CORS open', async () => {
    await runContentCredentialsJobs(w.app);
    const res = await w.app.inject({ url: '/.well-known/c2pa-trust-anchors.pem' });
    assert.equal(res.statusCode, 200);
    assert.equal(res.headers['access-control-allow-origin'], '*');
    anchors = res.body;
    assert.match(anchors, /^-----BEGIN CERTIFICATE-----/);
    assert.equal(anchors.match(/BEGIN CERTIFICATE/g)?.length, 1, 'one generated root');
    for (const [orderId, expected] of [['q0', 'ready'], ['q1', 'ready'], ['q2', 'ready'], ['q3', 'unsupported'], ['q4', 'ready'], ['q5', 'ready'], ['q7', 'ready']] as const) {
      const certificate = (await api(`/v1/orders/${orderId}/certificate`)).json() as { content_credentials: string };
      assert.equal(certificate.content_credentials, expected, orderId);
    }
  });

  for (const [orderId, type, name] of [['q1', 'image/png', 'q1.png'], ['q2', 'image/jpeg', 'q2.png']] as const) {
    it(`${type}: the credentialed file validates as Trusted with the certificate's assertion, its JWS checks against the JWKS`, async () => {
      const res = await downloadCredentialedFile(w.app, w.customerToken, orderId);
      assert.equal(res.statusCode, 200);
      assert.equal(res.headers['content-type'], type);
      assert.match(res.headers['content-disposition'] as string, new RegExp(`^attachment; filename="${name.replace('.', '\\.')}"`));
      const file = res.rawPayload;
      const upload = uploads.get(orderId)!;
      assert.ok(!file.equals(upload.bytes) && file.length > upload.bytes.length, 'a copy with the manifest added');

      const store = await readManifestStore(file, type, anchors);
      assert.equal(store.validation_state, 'Trusted', JSON.stringify(store.validation_results?.activeManifest?.failure));
      const manifest = activeManifest(store);
      assert.equal(manifest.claim_generator_info?.[0]?.name, 'certdesk');
      assert.equal(manifest.signature_info?.alg?.toLowerCase(), 'es256');
      // The upload is the parentOf ingredient; the first action opens it.
      assert.equal(manifest.ingredients.length, 1);
      assert.equal(manifest.ingredients[0]!.relationship, 'parentOf');
      const actions = manifest.assertions.find((a) => a.label === 'c2pa.actions.v2');
      assert.ok(actions, 'c2pa.actions.v2');
      const first = (actions.data.actions as Array<{ action: string; parameters?: { ingredients?: Array<{ url: string }> } }>)[0]!;
      assert.equal(first.action, 'c2pa.opened');
      assert.match(first.parameters?.ingredients?.[0]?.url ?? '', /c2pa\.ingredient/);

      const certificate = (await api(`/v1/orders/${orderId}/certificate`)).json() as { certificate_id: string; jws: string; verify_url: string; transparency_log: { issued: { index: number } } | null };
      const assertion = certdeskAssertion(store);
      assert.deepEqual(Object.keys(assertion).sort(), ['asset_sha256', 'certificate_id', 'issuer', 'jws', 'status_url', 'transparency_log', 'verify_url']);
      // The job waited for the transparency log: the file carries the same proof as the certificate's JSON.
      assert.ok(certificate.transparency_log, 'the certificate is in the log');
      assert.deepEqual(assertion.transparency_log, certificate.transparency_log);
      assert.equal(assertion.certificate_id, certificate.certificate_id);
      assert.equal(assertion.issuer, ISSUER);
      assert.equal(assertion.verify_url, certificate.verify_url);
      assert.equal(assertion.status_url, `${ISSUER}/v1/certificates/${certificate.certificate_id}`);
      assert.equal(assertion.asset_sha256, sha256(upload.bytes));
      assert.equal(assertion.jws, certificate.jws);
      const jwks = createLocalJWKSet((await w.app.inject({ url: '/.well-known/jwks.json' })).json());
      const { payload } = await jwtVerify(assertion.jws as string, jwks, { issuer: ISSUER, typ: 'certdesk-certificate+jwt', algorithms: ['ES256'] });
      assert.equal(payload.jti, certificate.certificate_id);
      assert.equal(payload.asset_sha256, sha256(upload.bytes));

      // Without the service's anchors the same file is Valid but its signer untrusted.
      const untrusted = await readManifestStore(file, type, '');
      assert.equal(untrusted.validation_state, 'Valid');

      // A byte of the image flipped: c2pa-rs reports the file altered.
      const altered = Buffer.from(file);
      altered[altered.length - 40]! ^= 0x01;
      const tampered = await readManifestStore(altered, type, anchors);
      assert.equal(tampered.validation_state, 'Invalid');
      assert.ok(tampered.validation_results?.activeManifest?.failure.some((f) => f.code === 'assertion.dataHash.mismatch'), JSON.stringify(tampered.validation_results?.activeManifest?.failure));
    });
  }

  it('WebP and TIFF carry Content Credentials too', async () => {
    for (const [orderId, type] of [['q0', 'image/webp'], ['q7', 'image/tiff']] as const) {
      const res = await downloadCredentialedFile(w.app, w.customerToken, orderId);
      assert.equal(res.statusCode, 200, orderId);
      assert.equal(res.headers['content-type'], type);
      const store = await readManifestStore(res.rawPayload, type, anchors);
      assert.equal(store.validation_state, 'Trusted', `${type}: ${JSON.stringify(store.validation_results?.activeManifest?.failure)}`);
      assert.equal(certdeskAssertion(store).asset_sha256, sha256(uploads.get(orderId)!.bytes), type);
    }
  });

  it('Content Credentials the upload carried are kept as its ingredient', async () => {
    const res = await downloadCredentialedFile(w.app, w.customerToken, 'q4');
    assert.equal(res.statusCode, 200);
    const store = await readManifestStore(res.rawPayload, 'image/png', anchors);
    assert.equal(store.validation_state, 'Trusted', JSON.stringify(store.validation_results));
    assert.equal(Object.keys(store.manifests).length, 2, 'the camera manifest and certdesk');
    const ingredient = activeManifest(store).ingredients[0]!;
    assert.equal(ingredient.relationship, 'parentOf');
    const cameraLabel = ingredient.active_manifest;
    assert.ok(cameraLabel, 'the ingredient names the manifest it carried');
    assert.equal(store.manifests[cameraLabel]?.claim_generator_info?.[0]?.name, 'Other Camera Co');
  });

  it('an upload whose own manifest no longer validates is still credentialed, its ingredient marked so', async () => {
    const res = await downloadCredentialedFile(w.app, w.customerToken, 'q5');
    assert.equal(res.statusCode, 200);
    const store = await readManifestStore(res.rawPayload, 'image/png', anchors);
    assert.ok(certdeskAssertion(store), 'certified');
    const ingredient = activeManifest(store).ingredients[0]!;
    const results = JSON.stringify(ingredient.validation_results ?? ingredient.validation_status ?? null);
    assert.match(results, /assertion\.dataHash\.mismatch/, 'the ingredient carries the failure of its manifest');
  });

  it('a PSD cannot carry Content Credentials: unsupported, and the file route says so (409); the certificate stands', async () => {
    const res = await downloadCredentialedFile(w.app, w.customerToken, 'q3');
    assert.equal(res.statusCode, 409);
    assert.equal(res.headers['retry-after'], undefined);
    assert.match((res.json() as { detail: string }).detail, /format \(PSD\) cannot carry Content Credentials/);
    assert.equal(((await api('/v1/orders/q3/certificate')).json() as { status: string }).status, 'valid');
  });

  it('the web order page offers the download, streamed for the signed-in customer', async () => {
    const page = await get(w, 'customer', '/orders/q1');
    assert.match(page.body, /<a class="button" href="\/orders\/q1\/certificate\/file" download>Download with Content Credentials<\/a>/);
    const file = await get(w, 'customer', '/orders/q1/certificate/file');
    assert.equal(file.statusCode, 200);
    assert.equal(file.headers['content-type'], 'image/png');
    assert.deepEqual(file.rawPayload, (await downloadCredentialedFile(w.app, w.customerToken, 'q1')).rawPayload);
    assert.doesNotMatch((await get(w, 'customer', '/orders/q3')).body, /Download with Content Credentials/);
    // Rita (another organization) does not see the customer's order.
    assert.equal((await get(w, 'rita', '/orders/q1/certificate/file')).statusCode, 404);
  });

  it('once revoked, the file is no longer handed out (410), on the API and the web', async () => {
    const revoke = await postForm(w, 'rita', '/review/orders/q1/certificate/revoke', { reason: 'Found to be generated' });
    assert.equal(revoke.statusCode, 303);
    const res = await downloadCredentialedFile(w.app, w.customerToken, 'q1');
    assert.equal(res.statusCode, 410);
    assert.match((res.json() as { detail: string }).detail, /revoked/);
    assert.equal((await get(w, 'customer', '/orders/q1/certificate/file')).statusCode, 410);
    assert.doesNotMatch((await get(w, 'customer', '/orders/q1')).body, /Download with Content Credentials/);
  });
});

describeOnEachDatabase('content credentials when storage or signing fails', (getDb) => {
  let w: ReviewWorld;

  before(async () => {
    w = await openReviewWorld(getDb(), 4);
    await certifyWithAsset(w, 'q1', pngBytes(32, 24), 'image/png');
  });
  after(async () => {
    await w?.close();
  });

  const state = async () => {
    const certificate = (await w.app.inject({ url: '/v1/orders/q1/certificate', headers: { authorization: `Bearer ${w.customerToken}` } })).json() as { status: string; content_credentials: string };
    const job = await getDb().db.selectFrom('jobs').select(['state', 'attempts', 'last_error']).where('kind', '=', 'make_content_credentials').executeTakeFirstOrThrow();
    return { status: certificate.status, cc: certificate.content_credentials, job };
  };

  it('a failed write or signature retries the job; the certificate stays valid and pending, then the file is made', async () => {
    const { storage, c2paSigner } = w.app.services;
    // The transparency log writes to object storage too: the certificate is logged before storage fails.
    await eventually(
      async () => (await w.app.inject({ url: '/v1/orders/q1/certificate', headers: { authorization: `Bearer ${w.customerToken}` } })).json() as { transparency_log: unknown },
      (c) => c.transparency_log !== null,
      'the certificate in the transparency log',
    );
    // Fault injection on the real services: object storage refuses writes, then the signer fails.
    const put = storage.put.bind(storage);
    storage.put = async () => {
      throw new Error('storage unavailable (injected)');
    };
    try {
      assert.equal(await w.app.services.jobs.worker.runDue(), 1);
    } finally {
      storage.put = put;
    }
    let now = await state();
    assert.deepEqual([now.status, now.cc, now.job.state, now.job.attempts], ['valid', 'pending', 'queued', 1]);
    assert.match(String(now.job.last_error), /storage unavailable/);
    assert.equal((await downloadCredentialedFile(w.app, w.customerToken, 'q1')).statusCode, 409);

    const sign = c2paSigner.sign;
    (c2paSigner as { sign: typeof sign }).sign = () => {
      throw new Error('signing device unavailable (injected)');
    };
    try {
      await advanceJobTime(getDb().db, 3_600_000);
      assert.equal(await w.app.services.jobs.worker.runDue(), 1);
    } finally {
      (c2paSigner as { sign: typeof sign }).sign = sign;
    }
    now = await state();
    assert.deepEqual([now.status, now.cc, now.job.state, now.job.attempts], ['valid', 'pending', 'queued', 2]);
    assert.match(String(now.job.last_error), /signing device unavailable/);

    await advanceJobTime(getDb().db, 3_600_000);
    assert.equal(await w.app.services.jobs.worker.runDue(), 1);
    now = await state();
    assert.equal(now.cc, 'ready');
    const file = await downloadCredentialedFile(w.app, w.customerToken, 'q1');
    assert.equal(file.statusCode, 200);
    const anchors = (await w.app.inject({ url: '/.well-known/c2pa-trust-anchors.pem' })).body;
    assert.equal((await readManifestStore(file.rawPayload, 'image/png', anchors)).validation_state, 'Trusted');
  });
});
