/**
 * Content Credentials in tests (docs/content-credentials.md):
 * - `readManifestStore`: what the C2PA reference implementation (c2pa-rs compiled to WebAssembly, the
 *   library the service signs with) reads and validates in a file, given trust anchors;
 * - `credentialAs`: a file carrying someone else's Content Credentials (a camera, another service), made
 *   with the service's own Content Credentials thread and a throw-away chain named for that party;
 * - `certifyWithAsset` + `credentialedFile`: a real file certified through the review routes, its job run,
 *   and the credentialed file downloaded from `GET /v1/orders/{id}/certificate/file`.
 */
import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
import type { FastifyInstance } from 'fastify';
import { initSync, WasmReader } from '@contentauth/c2pa-wasm';
import { CredentialPool } from '../../src/domain/content-credentials/credential-pool.js';
import { generateSigningChain, signerFromPem } from '../../src/domain/content-credentials/signing-chain.js';
import { decide, openOrder, type ReviewWorld } from '../review/review-world.js';

let initialised = false;
function initialise(): void {
  if (initialised) return;
  initSync({ module: readFileSync(createRequire(import.meta.url).resolve('@contentauth/c2pa-wasm/c2pa.wasm')) });
  initialised = true;
}

export interface ValidationEntry {
  code: string;
  url?: string;
  explanation?: string;
}

export interface ManifestStore {
  active_manifest: string;
  manifests: Record<
    string,
    {
      claim_generator_info?: Array<Record<string, string>>;
      title?: string;
      ingredients: Array<{ title: string; relationship: string; active_manifest?: string; validation_results?: unknown; validation_status?: ValidationEntry[] }>;
      assertions: Array<{ label: string; data: Record<string, unknown> }>;
      signature_info?: { alg?: string; issuer?: string; common_name?: string };
    }
  >;
  validation_state: 'Invalid' | 'Valid' | 'Trusted';
  validation_results?: { activeManifest?: { success: ValidationEntry[]; failure: ValidationEntry[]; informational: ValidationEntry[] } };
}

/** The manifest store of a file as c2pa-rs reads it, trust decided against `trustAnchorsPem` alone (empty: no anchor). */
export async function readManifestStore(bytes: Uint8Array, mediaType: string, trustAnchorsPem: string): Promise<ManifestStore> {
  initialise();
  const settings = JSON.stringify({ verify: { verify_trust: true, verify_after_reading: true }, ...(trustAnchorsPem ? { trust: { trust_anchors: trustAnchorsPem } } : {}) });
  const reader = await WasmReader.fromBytes(mediaType, bytes, settings);
  try {
    return JSON.parse(reader.json()) as ManifestStore;
  } finally {
    reader.free();
  }
}

export interface OtherParty {
  name: string;
  rootPem: string;
  chainPem: string;
  keyPem: string;
}

export async function otherParty(name: string): Promise<OtherParty> {
  return { name, ...(await generateSigningChain(name)) };
}

/** `bytes` with Content Credentials of `party` (claim generator `party.name`, a `c2pa.opened` of the bytes). */
export async function credentialAs(party: OtherParty, bytes: Uint8Array, mediaType: string, title = 'photo'): Promise<Buffer> {
  const pool = new CredentialPool({ threads: 1, heapMb: 256 });
  try {
    const outcome = await pool.credential(
      {
        bytes,
        mediaType,
        definition: {
          claim_generator_info: [{ name: party.name, version: '1.0' }],
          title,
          format: mediaType,
          assertions: [{ label: 'c2pa.actions.v2', data: { actions: [{ action: 'c2pa.opened', parameters: { ingredientIds: ['source'] } }] } }],
        },
        ingredient: { title, relationship: 'parentOf', label: 'source' },
      },
      signerFromPem(party.chainPem, party.keyPem),
    );
    if (outcome.kind !== 'made') throw new Error(`could not credential the test file as ${party.name}: ${outcome.reason}`);
    return outcome.bytes;
  } finally {
    await pool.close();
  }
}

/** Makes `bytes` the asset of seeded order `orderId` (as if uploaded), then certifies it through the review routes as Rita. */
export async function certifyWithAsset(w: ReviewWorld, orderId: string, bytes: Buffer, mediaType: string): Promise<void> {
  const { storage, database } = w.app.services;
  const key = `orgs/test/uploads/${orderId}-${Date.now()}`;
  await storage.put(key, bytes, mediaType);
  await database.db.updateTable('orders').set({ asset_key: key, asset_content_type: mediaType, asset_sha256: null }).where('order_id', '=', orderId).execute();
  const { claimId } = await openOrder(w, 'rita', orderId);
  if (!claimId) throw new Error(`no claim on ${orderId}`);
  const res = await decide(w, 'rita', orderId, 'certify', 'Looked at it closely', claimId);
  if (res.statusCode !== 200) throw new Error(`Certify ${orderId}: ${res.statusCode} ${res.body.slice(0, 500)}`);
}

/** Runs due jobs until none of the certificates is `pending` (real jobs, the service's queue). */
export async function runContentCredentialsJobs(app: FastifyInstance, deadlineMs = 120_000): Promise<void> {
  const started = Date.now();
  for (;;) {
    await app.services.jobs.worker.runDue();
    const pending = await app.services.database.db.selectFrom('certificates').select('certificate_id').where('content_credentials', '=', 'pending').execute();
    if (pending.length === 0) return;
    if (Date.now() - started > deadlineMs) throw new Error(`content credentials still pending after ${deadlineMs} ms: ${pending.map((p) => p.certificate_id).join(', ')}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** `GET /v1/orders/{orderId}/certificate/file` with `token`. */
export function downloadCredentialedFile(app: FastifyInstance, token: string, orderId: string) {
  return app.inject({ method: 'GET', url: `/v1/orders/${orderId}/certificate/file`, headers: { authorization: `Bearer ${token}` } });
}
