/**
 * Unit tests of the pure reading of a manifest store (src/content-credentials.ts) on the shapes the
 * reference implementation reports, and of `orders.certificateFile`'s answers with an injected fetch.
 * The reading of real files by the reference implementation is tested end to end in test/client and
 * test/web.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { assertionDisagreement, readerSettings, Certdesk, ConflictError, GoneError, interpretManifestStore, NotFoundError, sniffMediaType } from '../src/index.js';

const ASSERTION = {
  certificate_id: '7d1c0d3e-2f0b-4a57-9b7e-6c1c1f1f1f1f',
  issuer: 'https://certdesk.example',
  verify_url: 'https://certdesk.example/verify/7d1c0d3e-2f0b-4a57-9b7e-6c1c1f1f1f1f',
  status_url: 'https://certdesk.example/v1/certificates/7d1c0d3e-2f0b-4a57-9b7e-6c1c1f1f1f1f',
  asset_sha256: 'ab'.repeat(32),
  jws: 'h.p.s',
};

function store(assertions: Array<{ label: string; data: unknown }>, success: string[], failure: string[]): unknown {
  return {
    active_manifest: 'urn:c2pa:one',
    manifests: {
      'urn:c2pa:one': {
        claim_generator_info: [{ name: 'certdesk', version: '1.0' }],
        assertions,
        signature_info: { alg: 'Es256', issuer: 'certdesk.example', common_name: 'certdesk.example C2PA signer' },
      },
    },
    validation_results: { activeManifest: { success: success.map((code) => ({ code })), informational: [], failure: failure.map((code) => ({ code })) } },
  };
}

describe('interpretManifestStore', () => {
  it('a certdesk manifest, intact and trusted', () => {
    const reading = interpretManifestStore(store([{ label: 'org.certdesk.certificate', data: ASSERTION }], ['signingCredential.trusted', 'assertion.dataHash.match'], []));
    assert.deepEqual(reading, { kind: 'certdesk', assertion: ASSERTION, manifest: { signer: 'certdesk.example', claimGenerator: 'certdesk 1.0' }, intact: true, trusted: true, failures: [] });
  });

  it('altered bytes are not intact; an untrusted signer is intact but not trusted', () => {
    const altered = interpretManifestStore(store([{ label: 'org.certdesk.certificate', data: ASSERTION }], ['signingCredential.trusted'], ['assertion.dataHash.mismatch']));
    assert.equal(altered.kind === 'certdesk' && altered.intact, false);
    const untrusted = interpretManifestStore(store([{ label: 'org.certdesk.certificate', data: ASSERTION }], ['assertion.dataHash.match'], ['signingCredential.untrusted']));
    assert.ok(untrusted.kind === 'certdesk' && untrusted.intact && !untrusted.trusted);
  });

  it('a malformed assertion or none at all is someone else\'s Content Credentials; no manifest is none', () => {
    assert.equal(interpretManifestStore(store([{ label: 'org.certdesk.certificate', data: { ...ASSERTION, asset_sha256: 'nope' } }], [], [])).kind, 'other');
    const other = interpretManifestStore(store([{ label: 'c2pa.actions.v2', data: {} }], [], ['signingCredential.untrusted']));
    assert.deepEqual(other, { kind: 'other', manifest: { signer: 'certdesk.example', claimGenerator: 'certdesk 1.0' }, intact: true, failures: [{ code: 'signingCredential.untrusted' }] });
    assert.deepEqual(interpretManifestStore({}), { kind: 'none' });
    assert.deepEqual(interpretManifestStore(null), { kind: 'none' });
  });

  it('the certificate must be the one the assertion names', () => {
    assert.equal(assertionDisagreement(ASSERTION, { jti: ASSERTION.certificate_id, asset_sha256: ASSERTION.asset_sha256, iss: ASSERTION.issuer }), null);
    assert.equal(assertionDisagreement(ASSERTION, { jti: 'other', asset_sha256: ASSERTION.asset_sha256, iss: ASSERTION.issuer }), 'certificate_id');
    assert.equal(assertionDisagreement(ASSERTION, { jti: ASSERTION.certificate_id, asset_sha256: 'cd'.repeat(32), iss: ASSERTION.issuer }), 'asset_sha256');
    assert.equal(assertionDisagreement(ASSERTION, { jti: ASSERTION.certificate_id, asset_sha256: ASSERTION.asset_sha256, iss: 'https://evil.example' }), 'issuer');
  });

  it('reader settings: trust checked against the given anchors only, and with none nobody is trusted', () => {
    const pem = '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n';
    assert.deepEqual(JSON.parse(readerSettings(pem)), { verify: { verify_trust: true, verify_after_reading: true }, trust: { trust_anchors: pem } });
    assert.deepEqual(JSON.parse(readerSettings('')), { verify: { verify_trust: true, verify_after_reading: true } });
  });

  it('sniffs the formats by their first bytes', () => {
    assert.equal(sniffMediaType(Uint8Array.from([0xff, 0xd8, 0xff, 0xe0])), 'image/jpeg');
    assert.equal(sniffMediaType(Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a])), 'image/png');
    assert.equal(sniffMediaType(new TextEncoder().encode('RIFF\0\0\0\0WEBPVP8 ')), 'image/webp');
    assert.equal(sniffMediaType(new TextEncoder().encode('8BPS')), null);
  });
});

describe('orders.certificateFile', () => {
  function client(answer: () => Response): { client: Certdesk; requests: Request[] } {
    const requests: Request[] = [];
    const fetch = async (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
      const request = new Request(input, init);
      requests.push(request);
      if (request.url.endsWith('/oauth2/token')) return Response.json({ access_token: 'token', token_type: 'Bearer', expires_in: 3600 });
      return answer();
    };
    return { client: new Certdesk({ baseUrl: 'https://certdesk.example', clientId: 'id', clientSecret: 'secret', fetch, retry: { maxRetries: 0 } }), requests };
  }

  it('returns the bytes as a Blob of the asset\'s media type', async () => {
    const bytes = Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 1, 2, 3]);
    const { client: c, requests } = client(() => new Response(bytes, { headers: { 'content-type': 'image/png', 'content-disposition': 'attachment; filename="a.png"' } }));
    const blob = await c.orders.certificateFile('order-1');
    assert.equal(blob.type, 'image/png');
    assert.deepEqual(new Uint8Array(await blob.arrayBuffer()), bytes);
    const fileRequest = requests.find((r) => r.url.includes('/certificate/file'))!;
    assert.equal(new URL(fileRequest.url).pathname, '/v1/orders/order-1/certificate/file');
    assert.equal(fileRequest.headers.get('authorization'), 'Bearer token');
  });

  it('maps 409 (with Retry-After while being made), 410 and 404 to their error classes', async () => {
    const pending = client(() => Response.json({ detail: 'being made' }, { status: 409, headers: { 'retry-after': '5', 'x-request-id': 'req-1' } }));
    const error = await pending.client.orders.certificateFile('o').catch((e: unknown) => e);
    assert.ok(error instanceof ConflictError);
    assert.equal(error.retryAfterMs, 5000);
    assert.equal(error.requestId, 'req-1');
    await assert.rejects(client(() => Response.json({ detail: 'PSD cannot carry it' }, { status: 409 })).client.orders.certificateFile('o'), (e: unknown) => e instanceof ConflictError && e.retryAfterMs === null);
    await assert.rejects(client(() => Response.json({ detail: 'revoked' }, { status: 410 })).client.orders.certificateFile('o'), GoneError);
    await assert.rejects(client(() => Response.json({ detail: 'Not Found' }, { status: 404 })).client.orders.certificateFile('o'), NotFoundError);
  });
});
