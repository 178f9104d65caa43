/** c2pa-ts's hashing in a Content Credentials thread (node-crypto-provider.ts): node:crypto's, part by part, and no signing. */
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { test } from 'node:test';
import fc from 'fast-check';
import type { CryptoProvider } from '@trustnxt/c2pa-ts/crypto';
import { nodeCryptoProvider } from './node-crypto-provider.js';

const verifier = { verifySignature: async () => true } as unknown as CryptoProvider;

test('the streaming digest of the parts is the digest of the whole, for each algorithm', async () => {
  const provider = nodeCryptoProvider(verifier);
  await fc.assert(
    fc.asyncProperty(fc.array(fc.uint8Array({ maxLength: 300 }), { maxLength: 6 }), fc.constantFrom(['SHA-256', 'sha256'], ['SHA-384', 'sha384'], ['SHA-512', 'sha512'] as const), async (parts, [algorithm, node]) => {
      const whole = Buffer.concat(parts);
      const expected = createHash(node).update(whole).digest();
      const digest = provider.streamingDigest(algorithm as 'SHA-256');
      for (const part of parts) digest.update(part);
      assert.deepEqual(Buffer.from(await digest.final()), expected);
      assert.deepEqual(Buffer.from(await provider.digest(whole, algorithm as 'SHA-256')), expected);
    }),
  );
});

test('holds no key: signing is refused; verifying is the given provider’s; random values are random', async () => {
  const provider = nodeCryptoProvider(verifier);
  await assert.rejects(provider.sign(new Uint8Array(1), new Uint8Array(randomBytes(32)), { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' } as never), /no key/);
  assert.equal(await provider.verifySignature(new Uint8Array(1), new Uint8Array(1), new Uint8Array(1), {} as never), true);
  assert.equal(provider.getRandomValues(16).length, 16);
  assert.notDeepEqual(provider.getRandomValues(16), provider.getRandomValues(16));
});
