/**
 * Certificates through the real application (DECISIONS 9): issuing in the caller's transaction, the exact
 * JWS, `GET /v1/orders/{id}/certificate`, the public `GET /v1/certificates/{id}` (CORS, ETag, no-cache),
 * revocation, and signing keys: a key that signed a certificate stays in the served JWKS after rotation,
 * so the certificate still verifies with `jose` and the JWKS alone.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, it } from 'node:test';
import { createLocalJWKSet, decodeProtectedHeader, exportJWK, generateKeyPair, jwtVerify, SignJWT, type JSONWebKeySet } from 'jose';
import { sql } from 'kysely';
import {
  AssetBytesMissingError,
  CertificateVerificationError,
  ensureAssetSha256,
  issueCertificate,
  revokeCertificate,
  revokeCertificateNow,
  verifyCertificate,
} from '../../src/domain/certificates/index.js';
import { insertSyntheticCertificates } from '../../src/domain/certificates/synthetic-certificates.js';
import { changeOrder, changeOrderIn } from '../../src/domain/orders/order-lifecycle.service.js';
import { rotateSigningKey } from '../../src/oauth/keys/signing-keys.js';
import { certifyOrder, createOrderWithAsset, eventually, TEST_REVIEWER } from '../helpers/certificates.js';
import { describeOnEachDatabase } from '../helpers/database.js';
import { ACME, USERS } from '../helpers/fixtures.js';
import { pngBytes } from '../helpers/images.js';
import { startApi, type Api } from './api-harness.js';

const ISSUER = 'https://api.certdesk.test';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

/** The same JWS with one character of its signature changed (a middle character: always changes the bytes). */
function tamper(jws: string): string {
  const [h, p, s] = jws.split('.') as [string, string, string];
  const i = Math.floor(s.length / 2);
  return `${h}.${p}.${s.slice(0, i)}${s[i] === 'A' ? 'B' : 'A'}${s.slice(i + 1)}`;
}

describeOnEachDatabase('certificates', (getDb) => {
  let api: Api;
  let bytes: Buffer;
  let orderId: string;
  let certificateId: string;
  let jws: string;

  before(async () => {
    api = await startApi(getDb());
    bytes = pngBytes();
    orderId = await createOrderWithAsset(api.app, api.tokens.admin, bytes, { name: 'sunset <final>.png' });
    const issued = await certifyOrder(api.app, orderId);
    certificateId = issued.certificate_id;
    jws = issued.jws;
  });
  after(async () => {
    await api?.close();
  });

  async function servedJwks(): Promise<JSONWebKeySet> {
    const res = await api.get('/.well-known/jwks.json', null);
    assert.equal(res.statusCode, 200);
    return res.json() as JSONWebKeySet;
  }

  it('is a compact JWS (ES256) with exactly the header and claims of DECISIONS 9', async () => {
    assert.match(certificateId, UUID);
    const header = decodeProtectedHeader(jws);
    assert.deepEqual(Object.keys(header).sort(), ['alg', 'kid', 'typ']);
    assert.equal(header.alg, 'ES256');
    assert.equal(header.typ, 'certdesk-certificate+jwt');
    const { payload } = await jwtVerify(jws, createLocalJWKSet(await servedJwks()), { issuer: ISSUER, typ: 'certdesk-certificate+jwt', algorithms: ['ES256'] });
    assert.deepEqual(Object.keys(payload).sort(), ['asset_media_type', 'asset_name', 'asset_sha256', 'iat', 'iss', 'jti', 'org_id', 'org_name', 'sub', 'verify_url'].sort());
    assert.equal(payload.iss, ISSUER);
    assert.equal(payload.jti, certificateId);
    assert.equal(payload.sub, orderId);
    assert.equal(payload.org_id, ACME.id);
    assert.equal(payload.org_name, ACME.name);
    assert.equal(payload.asset_name, 'sunset <final>.png');
    assert.equal(payload.asset_sha256, createHash('sha256').update(bytes).digest('hex'));
    assert.equal(payload.asset_media_type, 'image/png');
    assert.equal(payload.verify_url, `https://api.certdesk.test/verify/${certificateId}`);
    assert.equal(typeof payload.iat, 'number');
  });

  it('GET /v1/orders/{order_id}/certificate: the certificate for those who see the order, 404 for everyone else', async () => {
    const res = await api.get(`/v1/orders/${orderId}/certificate`, 'admin');
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(res.headers['cache-control'], 'no-store');
    const body = res.json() as Record<string, unknown>;
    assert.deepEqual(Object.keys(body), ['certificate_id', 'order_id', 'status', 'issued_at', 'revoked_at', 'revocation_reason', 'asset_name', 'asset_sha256', 'jws', 'verify_url', 'content_credentials', 'transparency_log']);
    assert.equal(body.certificate_id, certificateId);
    assert.equal(body.order_id, orderId);
    assert.equal(body.status, 'valid');
    assert.equal(body.jws, jws);
    api.openapi.assertResponse('get_order_certificate_v1_orders__order_id__certificate_get', 200, body);
    // Another organization, and a member who does not see the admin's personal order: as if it did not exist.
    for (const who of ['other', 'loner'] as const) {
      const hidden = await api.get(`/v1/orders/${orderId}/certificate`, who);
      assert.equal(hidden.statusCode, 404);
      assert.deepEqual(Object.keys(hidden.json() as object), ['detail']);
    }
    assert.equal((await api.get(`/v1/orders/${orderId}/certificate`, null)).statusCode, 401);
    // An order without a certificate.
    const uncertified = await createOrderWithAsset(api.app, api.tokens.admin, pngBytes());
    const none = await api.get(`/v1/orders/${uncertified}/certificate`, 'admin');
    assert.equal(none.statusCode, 404);
    assert.equal((none.json() as { detail: string }).detail, 'Certificate not found');
  });

  it('GET /v1/certificates/{id}: public, CORS open, revalidated each time (ETag, 304), the same object without order_id', async () => {
    // The log's sequencer runs in the background: once the certificate is in a published checkpoint, both
    // routes show the same `transparency_log` (before, one read could see it and the other not).
    const res = await eventually(
      () => api.get(`/v1/certificates/${certificateId}`, null, { origin: 'https://customer.example' }),
      (r) => r.statusCode !== 200 || (r.json() as { transparency_log: unknown }).transparency_log !== null,
      'the certificate in a published checkpoint',
    );
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(res.headers['access-control-allow-origin'], '*');
    assert.equal(res.headers['cache-control'], 'public, no-cache');
    const etag = String(res.headers.etag);
    assert.match(etag, /^".+"$/);
    const body = res.json() as Record<string, unknown>;
    assert.deepEqual(Object.keys(body), ['certificate_id', 'status', 'issued_at', 'revoked_at', 'revocation_reason', 'asset_name', 'asset_sha256', 'jws', 'verify_url', 'content_credentials', 'transparency_log']);
    const own = (await api.get(`/v1/orders/${orderId}/certificate`, 'admin')).json() as Record<string, unknown>;
    const { order_id: _omitted, ...withoutOrder } = own;
    assert.deepEqual(body, withoutOrder);
    api.openapi.assertResponse('get_certificate_v1_certificates__certificate_id__get', 200, body);
    const again = await api.get(`/v1/certificates/${certificateId}`, null, { 'if-none-match': etag });
    assert.equal(again.statusCode, 304);
    assert.equal(again.body, '');
    // A bearer token changes nothing: the route ignores credentials.
    assert.deepEqual((await api.get(`/v1/certificates/${certificateId}`, 'other')).json(), body);
    const preflight = await api.app.inject({
      method: 'OPTIONS',
      url: `/v1/certificates/${certificateId}`,
      headers: { origin: 'https://customer.example', 'access-control-request-method': 'GET' },
    });
    assert.equal(preflight.statusCode, 204);
    assert.equal(preflight.headers['access-control-allow-origin'], '*');
    assert.match(String(preflight.headers['access-control-allow-methods']), /GET/);
  });

  it('unknown and malformed certificate ids are 404 {"detail"}', async () => {
    for (const id of ['00000000-0000-4000-8000-000000000000', 'not-a-uuid', orderId, `${certificateId}x`, '%00', 'a'.repeat(90)]) {
      const res = await api.get(`/v1/certificates/${encodeURIComponent(id)}`, null);
      assert.equal(res.statusCode, 404, `${id}: ${res.body}`);
      assert.deepEqual(Object.keys(res.json() as object), ['detail']);
      assert.equal(res.headers['access-control-allow-origin'], '*');
    }
  });

  it('badge.svg: an SVG linking to the verify page, embeddable anywhere, revalidated each time; 404 for unknown ids', async () => {
    const res = await api.get(`/verify/${certificateId}/badge.svg`, null);
    assert.equal(res.statusCode, 200);
    assert.match(String(res.headers['content-type']), /^image\/svg\+xml/);
    assert.equal(res.headers['access-control-allow-origin'], '*');
    assert.equal(res.headers['cross-origin-resource-policy'], 'cross-origin');
    assert.equal(res.headers['cache-control'], 'public, no-cache');
    assert.match(res.body, /^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg"/);
    assert.match(res.body, />Human Certified</);
    assert.ok(res.body.includes(`<a href="https://api.certdesk.test/verify/${certificateId}"`));
    // The asset name is data: escaped, never markup; and no script anywhere.
    assert.ok(res.body.includes('sunset &lt;final&gt;.png'));
    assert.doesNotMatch(res.body, /<script|sunset <final>/);
    const again = await api.get(`/verify/${certificateId}/badge.svg`, null, { 'if-none-match': String(res.headers.etag) });
    assert.equal(again.statusCode, 304);
    for (const id of ['00000000-0000-4000-8000-000000000000', 'nope']) {
      const missing = await api.get(`/verify/${id}/badge.svg`, null);
      assert.equal(missing.statusCode, 404);
    }
  });

  it('the JWKS is readable from other origins (CORS, preflight)', async () => {
    const res = await api.get('/.well-known/jwks.json', null, { origin: 'https://customer.example' });
    assert.equal(res.headers['access-control-allow-origin'], '*');
    const preflight = await api.app.inject({ method: 'OPTIONS', url: '/.well-known/jwks.json', headers: { origin: 'https://x.example', 'access-control-request-method': 'GET' } });
    assert.equal(preflight.statusCode, 204);
    assert.equal(preflight.headers['access-control-allow-origin'], '*');
  });

  it('offline verification fails clearly for a tampered JWS, a JWS of another issuer, and an altered file', async () => {
    const jwks = await servedJwks();
    const claims = await verifyCertificate(jws, jwks, { issuer: ISSUER });
    assert.equal(claims.jti, certificateId);
    await assert.rejects(verifyCertificate(tamper(jws), jwks, { issuer: ISSUER }), (err: unknown) => err instanceof CertificateVerificationError && /signature/.test(err.message));
    // Another issuer with its own key: not in this JWKS.
    const foreign = await generateKeyPair('ES256');
    const foreignJws = await new SignJWT({ ...claims, iss: 'https://evil.example' })
      .setProtectedHeader({ alg: 'ES256', kid: 'evil', typ: 'certdesk-certificate+jwt' })
      .sign(foreign.privateKey);
    await assert.rejects(verifyCertificate(foreignJws, jwks, { issuer: ISSUER }), /not in the JWKS/);
    // Even with its key added to the set, the issuer does not match.
    const withForeign = { keys: [...jwks.keys, { ...(await exportJWK(foreign.publicKey)), kid: 'evil', alg: 'ES256' }] };
    await assert.rejects(verifyCertificate(foreignJws, withForeign, { issuer: ISSUER }), /claim iss/);
    // An access token is not a certificate (typ pinned).
    await assert.rejects(verifyCertificate(api.tokens.admin, jwks, { issuer: ISSUER }), CertificateVerificationError);
    // An altered file has another digest.
    const altered = Buffer.from(bytes);
    altered.writeUInt8(altered.readUInt8(altered.length - 1) ^ 1, altered.length - 1);
    assert.notEqual(createHash('sha256').update(altered).digest('hex'), claims.asset_sha256);
  });

  it('is issued only for a Human Certified order with asset bytes, once (409 otherwise); the certify path is all or nothing', async () => {
    const { db } = api.database;
    const deps = api.app.services.certificates;
    // Twice.
    await assert.rejects(
      db.transaction().execute((trx) => issueCertificate(trx, deps, { orderId, actor: TEST_REVIEWER })),
      (err: { statusCode?: number; messageKey?: string }) => err.statusCode === 409 && err.messageKey === 'errors.certificate_exists',
    );
    // Not certified.
    const inProgress = await createOrderWithAsset(api.app, api.tokens.admin, pngBytes());
    await ensureAssetSha256(db, api.app.services.storage, inProgress);
    await assert.rejects(
      db.transaction().execute((trx) => issueCertificate(trx, deps, { orderId: inProgress, actor: TEST_REVIEWER })),
      (err: { statusCode?: number; messageKey?: string }) => err.statusCode === 409 && err.messageKey === 'errors.certificate_not_certified',
    );
    // A seeded order has no asset bytes: nothing to hash, and the whole decision rolls back.
    const seeded = (await db.selectFrom('orders').select('order_id').where('organization_id', '=', ACME.id).where('order_state', '=', 'In Progress').where('asset_key', 'is', null).executeTakeFirstOrThrow()).order_id;
    await assert.rejects(ensureAssetSha256(db, api.app.services.storage, seeded), AssetBytesMissingError);
    await assert.rejects(
      db.transaction().execute(async (trx) => {
        await changeOrderIn(trx, api.app.services.clock, seeded, TEST_REVIEWER, { to: 'Human Certified' });
        return issueCertificate(trx, deps, { orderId: seeded, actor: TEST_REVIEWER });
      }),
      (err: { messageKey?: string }) => err.messageKey === 'errors.certificate_asset_unavailable',
    );
    const after = await db.selectFrom('orders').select('order_state').where('order_id', '=', seeded).executeTakeFirstOrThrow();
    assert.equal(after.order_state, 'In Progress');
    // The digest is recorded once and read from the row afterwards.
    const row = await db.selectFrom('orders').select('asset_sha256').where('order_id', '=', inProgress).executeTakeFirstOrThrow();
    assert.equal(row.asset_sha256, createHash('sha256').update(pngBytes()).digest('hex'));
  });

  it('a key that signed a certificate stays in the served JWKS after rotation, for good; the certificate still verifies', async () => {
    const { db } = api.database;
    const oldKid = decodeProtectedHeader(jws).kid!;
    // A key that signs nothing, retired long ago, drops out; the certificate key does not.
    const first = await rotateSigningKey(db, null);
    assert.deepEqual(first.retired, [oldKid]);
    await api.app.services.oauth.keys.refresh();
    const second = await rotateSigningKey(db, null);
    assert.deepEqual(second.retired, [first.kid]);
    await sql`UPDATE signing_keys SET retired_at = now() - interval '400 days' WHERE kid IN (${oldKid}, ${first.kid})`.execute(db);
    await api.app.services.oauth.keys.refresh();
    const jwks = await servedJwks();
    const kids = jwks.keys.map((k) => k.kid);
    assert.ok(kids.includes(oldKid), 'the certificate key is still published');
    assert.ok(!kids.includes(first.kid), 'a retired key that signed no certificate and whose tokens expired is gone');
    assert.ok(kids.includes(second.kid));
    // The certificate verifies with jose and the served JWKS alone.
    const { payload } = await jwtVerify(jws, createLocalJWKSet(jwks), { issuer: ISSUER, typ: 'certdesk-certificate+jwt', algorithms: ['ES256'] });
    assert.equal(payload.jti, certificateId);
    // Access tokens are not accepted from the retired key (it is published for certificates only).
    assert.equal(api.app.services.oauth.keys.current().verification.has(oldKid), false);
    // New certificates are signed by the new key.
    const another = await createOrderWithAsset(api.app, api.tokens.admin, pngBytes());
    const issued = await certifyOrder(api.app, another);
    assert.equal(decodeProtectedHeader(issued.jws).kid, second.kid);
  });

  it('revocation: final (a second one is 409), shown by both routes with a new ETag as soon as it is announced; the order keeps its state', async () => {
    const { db } = api.database;
    const clock = api.app.services.clock;
    const before = await api.get(`/v1/certificates/${certificateId}`, null);
    const badgeBefore = await api.get(`/verify/${certificateId}/badge.svg`, null);
    const badgeEtag = String(badgeBefore.headers.etag);
    assert.equal((await api.get(`/verify/${certificateId}/badge.svg`, null, { 'if-none-match': badgeEtag })).statusCode, 304);
    await assert.rejects(revokeCertificateNow(db, clock, certificateId, '   ', TEST_REVIEWER), (err: { statusCode?: number }) => err.statusCode === 422);
    await assert.rejects(revokeCertificateNow(db, clock, '00000000-0000-4000-8000-000000000000', 'x', TEST_REVIEWER), (err: { statusCode?: number }) => err.statusCode === 404);
    const revoked = await revokeCertificateNow(db, clock, certificateId, '  Evidence of generation found  ', TEST_REVIEWER);
    assert.equal(revoked.revocation_reason, 'Evidence of generation found');
    await assert.rejects(revokeCertificateNow(db, clock, certificateId, 'again', TEST_REVIEWER), (err: { statusCode?: number }) => err.statusCode === 409);
    // Revalidated with the ETag it had: the new state once the change notification has arrived (ms).
    const res = await eventually(
      () => api.get(`/v1/certificates/${certificateId}`, null, { 'if-none-match': String(before.headers.etag) }),
      (r) => r.statusCode !== 304,
      'the revocation on the public API',
    );
    assert.equal(res.statusCode, 200, 'the old ETag no longer matches');
    const body = res.json() as { status: string; revoked_at: string; revocation_reason: string };
    assert.equal(body.status, 'revoked');
    assert.equal(body.revocation_reason, 'Evidence of generation found');
    assert.match(body.revoked_at, /Z$/);
    api.openapi.assertResponse('get_certificate_v1_certificates__certificate_id__get', 200, body);
    assert.equal(((await api.get(`/v1/orders/${orderId}/certificate`, 'admin')).json() as { status: string }).status, 'revoked');
    // The badge revalidated with the ETag it had before: the new state, not a 304, once announced.
    const badgeAfter = await eventually(
      () => api.get(`/verify/${certificateId}/badge.svg`, null, { 'if-none-match': badgeEtag }),
      (r) => r.statusCode !== 304,
      'the revocation on the badge',
    );
    assert.equal(badgeAfter.statusCode, 200, 'the old badge ETag no longer matches');
    assert.match(badgeAfter.body, />Revoked</);
    assert.notEqual(badgeAfter.headers.etag, badgeEtag);
    // The verify page is never stored by a cache (no-store) and says so on the next request.
    const page = await api.get(`/verify/${certificateId}`, null);
    assert.equal(page.statusCode, 200);
    assert.equal(page.headers['cache-control'], 'no-store');
    assert.match(page.body, /data-status="revoked"/);
    const order = await api.get(`/v1/orders/${orderId}`, 'admin');
    assert.equal((order.json() as { order_state: string }).order_state, 'Human Certified');
  });

  it('the history records certificate_issued and certificate_revoked, in the transactions that issued and revoked', async () => {
    type Event = { type: string; actor: string; from_state: string | null; to_state: string | null; note: string | null; changes: unknown };
    const history = async (id: string) => {
      const res = await api.get(`/v1/orders/${id}/history`, 'admin');
      assert.equal(res.statusCode, 200);
      return (res.json() as { events: Event[] }).events;
    };
    const events = await history(orderId);
    const certified = events.findIndex((e) => e.type === 'state_changed' && e.to_state === 'Human Certified');
    const issued = events.findIndex((e) => e.type === 'certificate_issued');
    assert.ok(certified >= 0 && issued > certified, 'issued after the move to Human Certified');
    assert.deepEqual(events[issued], {
      ...events[issued],
      actor: TEST_REVIEWER.kind === 'user' ? TEST_REVIEWER.email : '',
      from_state: null,
      to_state: null,
      note: null,
      changes: { certificate_id: { before: null, after: certificateId } },
    });
    const revoked = events.filter((e) => e.type === 'certificate_revoked');
    assert.equal(revoked.length, 1, 'the refused second revocation recorded nothing');
    assert.deepEqual(revoked[0], {
      ...revoked[0],
      actor: 'reviewer@certifier.test',
      from_state: null,
      to_state: null,
      note: 'Evidence of generation found',
      changes: { certificate_status: { before: 'valid', after: 'revoked' } },
    });
    assert.equal(events.at(-1)!.type, 'certificate_revoked');
    api.openapi.assertResponse('get_order_history_v1_orders__order_id__history_get', 200, { events });

    // The operator command's actor appears as certdesk:operator.
    const other = await createOrderWithAsset(api.app, api.tokens.admin, pngBytes());
    const otherCertificate = await certifyOrder(api.app, other);
    await revokeCertificateNow(api.database.db, api.app.services.clock, otherCertificate.certificate_id, 'Operator revocation', { kind: 'system', component: 'operator' });
    const last = (await history(other)).at(-1)!;
    assert.equal(last.type, 'certificate_revoked');
    assert.equal(last.actor, 'certdesk:operator');
    assert.equal(last.note, 'Operator revocation');
  });

  it("a revocation and its history event share the caller's transaction: both roll back together", async () => {
    const other = await createOrderWithAsset(api.app, api.tokens.admin, pngBytes());
    const { certificate_id } = await certifyOrder(api.app, other);
    const { db } = api.database;
    await assert.rejects(
      db.transaction().execute(async (trx) => {
        await revokeCertificate(trx, api.app.services.clock, certificate_id, 'Will not stick', TEST_REVIEWER);
        throw new Error('the caller fails after revoking');
      }),
      /the caller fails/,
    );
    const res = await api.get(`/v1/certificates/${certificate_id}`, null);
    assert.equal((res.json() as { status: string }).status, 'valid');
    const events = ((await api.get(`/v1/orders/${other}/history`, 'admin')).json() as { events: Array<{ type: string }> }).events;
    assert.equal(events.filter((e) => e.type === 'certificate_revoked').length, 0);
  });

  it('a certified order is final: no move away from Human Certified', async () => {
    await assert.rejects(changeOrder(api.database.db, api.app.services.clock, orderId, TEST_REVIEWER, { to: 'Failed' }), (err: { statusCode?: number }) => err.statusCode === 409);
  });

  it('synthetic certificates (tests and benchmarks) are real and verifiable', async () => {
    const ids = await insertSyntheticCertificates(api.database.db, api.app.services.certificates, {
      organizationId: ACME.id,
      organizationName: ACME.name,
      ownerEmail: USERS.admin.email,
      count: 25,
      batchSize: 10,
    });
    assert.equal(ids.length, 25);
    const res = await api.get(`/v1/certificates/${ids[24]}`, null);
    assert.equal(res.statusCode, 200);
    const claims = await verifyCertificate((res.json() as { jws: string }).jws, await servedJwks(), { issuer: ISSUER });
    assert.equal(claims.jti, ids[24]);
  });
});
