/**
 * The hashing c2pa-ts (@trustnxt/c2pa-ts) does in a Content Credentials thread, with node:crypto.
 *
 * c2pa-ts's own provider is WebCrypto's, which has no incremental digest: its "streaming" digest gathers the
 * parts and copies them into one buffer before hashing, i.e. a second copy of a 20 MB file (and WebCrypto
 * copies its input once more). node:crypto hashes each part where it lies. The thread holds no key: signing
 * is refused (the claim is signed by the pool's side, cose-sign1.ts).
 */
import { createHash, getRandomValues } from 'node:crypto';
import type { CryptoProvider, HashAlgorithm, StreamingDigest } from '@trustnxt/c2pa-ts/crypto';
import type { C2paTs } from './c2pa-ts-library.js';

const NODE_HASH: Readonly<Record<HashAlgorithm, string>> = { 'SHA-256': 'sha256', 'SHA-384': 'sha384', 'SHA-512': 'sha512' };

function hashName(algorithm: HashAlgorithm): string {
  const name = NODE_HASH[algorithm];
  if (!name) throw new Error(`unsupported hash algorithm ${String(algorithm)}`);
  return name;
}

export function nodeCryptoProvider(verifyWith: CryptoProvider): CryptoProvider {
  return {
    async digest(data: Uint8Array, algorithm: HashAlgorithm): Promise<Uint8Array> {
      return new Uint8Array(createHash(hashName(algorithm)).update(data).digest());
    },
    streamingDigest(algorithm: HashAlgorithm): StreamingDigest {
      const hash = createHash(hashName(algorithm));
      return {
        update: (data: Uint8Array) => void hash.update(data),
        final: async () => new Uint8Array(hash.digest()),
      };
    },
    verifySignature: (payload, signature, publicKey, algorithm) => verifyWith.verifySignature(payload, signature, publicKey, algorithm),
    sign(): Promise<Uint8Array> {
      return Promise.reject(new Error('no key in a Content Credentials thread: the claim is signed by the pool'));
    },
    getRandomValues: (count: number) => getRandomValues(new Uint8Array(count)),
  };
}

let installed = false;

/** Makes c2pa-ts hash with node:crypto in this thread (once). */
export function useNodeCryptoForC2paTs(lib: C2paTs): void {
  if (installed) return;
  lib.crypto.Crypto.provider = nodeCryptoProvider(lib.crypto.Crypto.provider);
  installed = true;
}
