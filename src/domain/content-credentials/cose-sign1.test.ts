/** The manifest's COSE_Sign1 (cose-sign1.ts): exactly the reserved size, and the structure C2PA reads. */
import assert from 'node:assert/strict';
import { generateKeyPairSync, randomBytes, sign, verify } from 'node:crypto';
import { test } from 'node:test';
import { decode } from 'cborg';
import { coseReserveSize, coseSign1, coseToBeSigned } from './cose-sign1.js';

const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
const es256 = (data: Uint8Array) => new Uint8Array(sign('sha256', data, { key: privateKey, dsaEncoding: 'ieee-p1363' }));

test('fills the reserved size exactly, whatever the chain, and carries ES256 and x5chain in its protected header', () => {
  for (const sizes of [[500], [700, 900], [1200, 1100, 1000], [2500]]) {
    const chain = sizes.map((n) => new Uint8Array(randomBytes(n)));
    const reserve = coseReserveSize(chain);
    const claim = new Uint8Array(randomBytes(3000));
    const cose = coseSign1(claim, chain, es256, reserve);
    assert.equal(cose.length, reserve, `chain of ${sizes.join('+')} bytes`);
    assert.equal(cose[0], 0xd2, 'CBOR tag 18 (COSE_Sign1)');
    const [protectedBytes, unprotected, payload, signature] = decode(cose.subarray(1), { useMaps: true }) as [Uint8Array, Map<string, Uint8Array>, null, Uint8Array];
    assert.equal(payload, null, 'detached payload');
    const header = decode(protectedBytes, { useMaps: true }) as Map<number, unknown>;
    assert.equal(header.get(1), -7);
    const x5chain = header.get(33);
    assert.deepEqual(chain.length === 1 ? [x5chain] : x5chain, chain);
    const pad = unprotected.get('pad');
    assert.ok(pad && pad.every((b) => b === 0), 'a zero pad');
    assert.ok(verify('sha256', coseToBeSigned(protectedBytes, claim), { key: publicKey, dsaEncoding: 'ieee-p1363' }, signature), 'the signature is over the Sig_structure');
  }
});

test('refuses a reserve the signature does not fit', () => {
  assert.throws(() => coseSign1(new Uint8Array(10), [new Uint8Array(2000)], es256, 500), /does not fit/);
});
