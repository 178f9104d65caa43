/**
 * Files with Content Credentials that the service would never make, for the reading side's tests: a
 * manifest carrying certdesk's assertion but signed by a chain of the test's choosing (a forgery, or
 * another deployment), and other parties' Content Credentials. Made with the service's own C2PA thread
 * (c2pa-rs compiled to WebAssembly, the manifest's COSE signature by src/domain/content-credentials) and
 * a throw-away chain with the C2PA signing profile; the certified files themselves come from the service
 * (test/helpers/content-credentials.ts: certified through the review routes, the job run, downloaded).
 */
import { CredentialPool } from '../../src/domain/content-credentials/credential-pool.js';
import { signerFromPem, type C2paSigner } from '../../src/domain/content-credentials/signing-chain.js';
import { otherParty, type OtherParty } from './content-credentials.js';

export type TestSigningChain = OtherParty;

/** A root and a leaf (P-256, the C2PA signing profile) named `organization`. */
export function makeSigningChain(organization: string): Promise<TestSigningChain> {
  return otherParty(organization);
}

export interface ManifestOptions {
  /** A throw-away chain, or the service's own signer (`app.services.c2paSigner`) for a manifest certdesk would sign. */
  chain: TestSigningChain | C2paSigner;
  claimGenerator: string;
  /** Extra assertions: label → JSON data. */
  assertions?: Record<string, unknown>;
  title?: string;
}

/** `bytes` (of `format`, e.g. image/png) with an embedded manifest: the input as parentOf ingredient, `c2pa.opened`, the assertions. */
export async function signAsset(bytes: Uint8Array, format: string, options: ManifestOptions): Promise<Buffer> {
  const title = options.title ?? 'asset';
  const pool = new CredentialPool({ threads: 1, heapMb: 256 });
  try {
    const outcome = await pool.credential(
      {
        bytes,
        mediaType: format,
        definition: {
          claim_generator_info: [{ name: options.claimGenerator, version: '1.0' }],
          title,
          format,
          assertions: [
            { label: 'c2pa.actions.v2', data: { actions: [{ action: 'c2pa.opened', parameters: { ingredientIds: ['source'] } }] } },
            ...Object.entries(options.assertions ?? {}).map(([label, data]) => ({ label, data })),
          ],
        },
        ingredient: { title, relationship: 'parentOf', label: 'source' },
      },
      'chainDer' in options.chain ? options.chain : signerFromPem(options.chain.chainPem, options.chain.keyPem),
    );
    if (outcome.kind !== 'made') throw new Error(`could not sign the test file: ${outcome.reason}`);
    return outcome.bytes;
  } finally {
    await pool.close();
  }
}
