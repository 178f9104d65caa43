/**
 * The chain that signs Content Credentials (docs/content-credentials.md, "Trust" and "Rotation"): the
 * generated root and leaf (the C2PA signing profile, keys encrypted with MASTER_KEY, made once), an
 * operator's chain from C2PA_CERTIFICATE_CHAIN / C2PA_PRIVATE_KEY (checked at start, used for new files,
 * validated by c2pa-rs as Trusted with the published anchors), and rotation keeping every root that
 * signed a file in /.well-known/c2pa-trust-anchors.pem. PGlite always, PostgreSQL when TEST_DATABASE_URL is set.
 */
import 'reflect-metadata';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, it } from 'node:test';
import * as x509 from '@peculiar/x509';
import { ConfigError, loadConfig } from '../../src/config.js';
import { C2PA_SIGNING_EKU, ensureC2paSigner, generateSigningChain } from '../../src/domain/content-credentials/signing-chain.js';
import { buildTestApp } from '../helpers/app.js';
import { describeOnEachDatabase } from '../helpers/database.js';
import { pngBytes } from '../helpers/images.js';
import { certifyWithAsset, downloadCredentialedFile, readManifestStore, runContentCredentialsJobs } from '../helpers/content-credentials.js';
import { apiTestConfig } from '../http/api-harness.js';
import { openReviewWorld, type ReviewWorld } from '../review/review-world.js';

const MASTER_KEY = 'a-master-key-of-at-least-32-characters-0123456789';
const anchorsOf = (pem: string) => pem.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? [];

it('C2PA_CERTIFICATE_CHAIN and C2PA_PRIVATE_KEY go together', () => {
  assert.throws(() => loadConfig({ C2PA_CERTIFICATE_CHAIN: '/x/chain.pem' }), ConfigError);
  assert.throws(() => loadConfig({ C2PA_PRIVATE_KEY: '/x/key.pem' }), ConfigError);
  assert.equal(loadConfig({ C2PA_CERTIFICATE_CHAIN: 'chain.pem', C2PA_PRIVATE_KEY: 'key.pem' }).c2paCertificateChain, path.resolve('chain.pem'));
});

describeOnEachDatabase('C2PA signing chain', (getDb) => {
  let w: ReviewWorld;

  before(async () => {
    w = await openReviewWorld(getDb(), 4);
  });
  after(async () => {
    await w?.close();
  });

  const restart = async (env: Record<string, string>) => {
    const storage = w.app.services.storage;
    await w.app.close();
    w.app = await buildTestApp({ config: apiTestConfig(w.dir, env), database: getDb(), storage, clock: w.clock });
    await w.app.ready();
  };
  const publishedAnchors = async () => (await w.app.inject({ url: '/.well-known/c2pa-trust-anchors.pem' })).body;

  it('the generated chain: a root for the deployment and a leaf with the C2PA signing profile, made once', async () => {
    const rows = await getDb().db.selectFrom('c2pa_signers').selectAll().execute();
    assert.equal(rows.length, 1);
    const [row] = rows;
    assert.equal(row!.source, 'generated');
    const root = new x509.X509Certificate(row!.anchor_pem);
    assert.equal(root.subject, 'CN=api.certdesk.test C2PA Root, O=api.certdesk.test');
    const leaf = new x509.X509Certificate(row!.chain_pem);
    assert.equal(leaf.issuer, root.subject);
    assert.ok(await leaf.verify({ publicKey: root.publicKey, signatureOnly: true }), 'the root signed the leaf');
    const basic = leaf.getExtension(x509.BasicConstraintsExtension)!;
    assert.equal(basic.ca, false);
    const usage = leaf.getExtension(x509.KeyUsagesExtension)!;
    assert.equal(usage.usages, x509.KeyUsageFlags.digitalSignature);
    assert.equal(usage.critical, true);
    assert.deepEqual([...leaf.getExtension(x509.ExtendedKeyUsageExtension)!.usages].sort(), ['1.3.6.1.5.5.7.3.4', C2PA_SIGNING_EKU].sort());
    assert.equal((leaf.publicKey.algorithm as EcKeyAlgorithm).namedCurve, 'P-256');
    assert.deepEqual(anchorsOf(await publishedAnchors()), anchorsOf(row!.anchor_pem));
    // Another start (another instance) uses the same chain.
    const again = await ensureC2paSigner(getDb().db, { masterKey: null, publicBaseUrl: 'https://api.certdesk.test', chainPath: null, keyPath: null });
    assert.equal(again.signerId, row!.signer_id);
  });

  it('an operator’s chain signs new files; the generated root stays published for the files it signed', async () => {
    await certifyWithAsset(w, 'q1', pngBytes(20, 20), 'image/png');
    await runContentCredentialsJobs(w.app);
    const generatedAnchors = await publishedAnchors();

    const authority = await generateSigningChain('Trusted Authority', { intermediate: true });
    const chainPath = path.join(w.dir, 'operator-chain.pem');
    const keyPath = path.join(w.dir, 'operator-key.pem');
    writeFileSync(chainPath, authority.chainPem);
    writeFileSync(keyPath, authority.keyPem);
    // A key that is not the leaf's is refused at start.
    const stranger = await generateSigningChain('Stranger');
    const wrongKeyPath = path.join(w.dir, 'wrong-key.pem');
    writeFileSync(wrongKeyPath, stranger.keyPem);
    await assert.rejects(
      ensureC2paSigner(getDb().db, { masterKey: null, publicBaseUrl: 'https://api.certdesk.test', chainPath, keyPath: wrongKeyPath }),
      /does not belong to the first certificate/,
    );

    // A leaf alone (no issuer to anchor trust in) and a chain out of order are refused at start.
    const [leafPem, intermediatePem] = authority.chainPem.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g)!;
    const leafOnlyPath = path.join(w.dir, 'leaf-only.pem');
    writeFileSync(leafOnlyPath, `${leafPem}\n`);
    await assert.rejects(
      ensureC2paSigner(getDb().db, { masterKey: null, publicBaseUrl: 'https://api.certdesk.test', chainPath: leafOnlyPath, keyPath }),
      /holds only one certificate/,
    );
    const strayIssuerPath = path.join(w.dir, 'stray-issuer.pem');
    writeFileSync(strayIssuerPath, `${leafPem}\n${stranger.rootPem}`);
    await assert.rejects(
      ensureC2paSigner(getDb().db, { masterKey: null, publicBaseUrl: 'https://api.certdesk.test', chainPath: strayIssuerPath, keyPath }),
      /certificate 1 .* is not signed by certificate 2/,
    );
    assert.ok(intermediatePem, 'the authority\'s chain has an intermediate');

    await restart({ C2PA_CERTIFICATE_CHAIN: chainPath, C2PA_PRIVATE_KEY: keyPath });
    await certifyWithAsset(w, 'q2', pngBytes(24, 20), 'image/png');
    await runContentCredentialsJobs(w.app);
    const anchors = await publishedAnchors();
    assert.equal(anchorsOf(anchors).length, 2, 'the generated root (it signed q1) and the operator chain’s anchor');
    assert.ok(anchors.startsWith(generatedAnchors.trim()), 'the older root first');

    const q2 = await downloadCredentialedFile(w.app, w.customerToken, 'q2');
    const store = await readManifestStore(q2.rawPayload, 'image/png', anchors);
    assert.equal(store.validation_state, 'Trusted');
    assert.equal(store.manifests[store.active_manifest]?.signature_info?.common_name, 'Trusted Authority Content Credentials');
    // q1, signed by the generated chain, still validates against today's anchors.
    const q1 = await downloadCredentialedFile(w.app, w.customerToken, 'q1');
    assert.equal((await readManifestStore(q1.rawPayload, 'image/png', anchors)).validation_state, 'Trusted');

    // The operator's chain removed: the deployment's generated chain signs again; both roots stay published.
    await restart({});
    const current = await getDb().db.selectFrom('c2pa_signers').select(['source']).where('retired_at', 'is', null).executeTakeFirstOrThrow();
    assert.equal(current.source, 'generated');
    assert.equal(anchorsOf(await publishedAnchors()).length, 2);
  });
});

describeOnEachDatabase('C2PA signing keys at rest', (getDb) => {
  it('are encrypted with MASTER_KEY, and a wrong key cannot use them', async () => {
    const options = { masterKey: MASTER_KEY, publicBaseUrl: 'https://certdesk.example', chainPath: null, keyPath: null };
    const signer = await ensureC2paSigner(getDb().db, options);
    const row = await getDb().db.selectFrom('c2pa_signers').selectAll().executeTakeFirstOrThrow();
    assert.equal(row.encrypted, true);
    for (const stored of [row.leaf_private_key!, row.root_private_key!]) {
      assert.match(stored, /^v1\./);
      assert.doesNotMatch(stored, /PRIVATE KEY/);
    }
    assert.equal((await ensureC2paSigner(getDb().db, options)).signerId, signer.signerId);
    await assert.rejects(ensureC2paSigner(getDb().db, { ...options, masterKey: 'another-master-key-of-at-least-32-characters' }), /MASTER_KEY is not the key/);
  });
});
