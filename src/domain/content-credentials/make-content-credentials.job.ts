/**
 * The `make_content_credentials` job (DECISIONS 13, docs/content-credentials.md): the credentialed copy of
 * a certificate's asset, made once the certificate is issued.
 *
 * 1. The asset as uploaded is read from object storage (it is never changed) and its format found in its
 *    bytes: JPEG, PNG, WebP and TIFF carry Content Credentials; anything else (PSD) is `unsupported`.
 * 2. A manifest store it already carries is sized from the container's lengths: above
 *    ANALYSIS_MAX_METADATA_BYTES it is refused unread (`unsupported`).
 * 3. With the transparency log, the job waits until the log has the certificate (it is tried again every
 *    few seconds, for at most TRANSPARENCY_LOG_WAIT_MS after issue; after that the file is made without the
 *    proof, which the certificate's JSON still gives).
 * 4. In a Content Credentials thread (credential-pool.ts) the manifest of manifest.ts is built and embedded
 *    (c2pa-ts for a plain JPEG or PNG, c2pa-rs for a file with Content Credentials, WebP and TIFF); the
 *    claim is signed here with the deployment's chain. A file the library cannot read
 *    (malformed, hostile, or killing its thread) is `unsupported`; the certificate stands either way.
 * 5. The copy is stored under a fresh key (an atomic write), and only then recorded as `ready`.
 *
 * Storage, signing or the database failing throws: the job is retried with backoff, the certificate is
 * untouched and stays `pending`.
 */
import { randomBytes } from 'node:crypto';
import { fileTypeFromBuffer } from 'file-type';
import type { Executor } from '../../storage/database.js';
import type { ObjectStorage } from '../../storage/object-storage/object-storage.js';
import type { JobContext, JobHandler } from '../background/job-handler.js';
import { findC2paStore } from '../analysis/metadata/c2pa.js';
import { mebibytes } from '../analysis/decoding/image-limits.js';
import type { Clock } from '../time/clock.js';
import { markContentCredentialsReady, markContentCredentialsUnsupported, readCredentialingFacts } from './content-credentials.repository.js';
import type { CredentialPool } from './credential-pool.js';
import { certificateAssertion, manifestDefinition, parentIngredient } from './manifest.js';
import type { C2paSigner } from './signing-chain.js';

/** Formats that carry a manifest here, by file-type's extension → media type. */
export const CREDENTIALED_FORMATS: Readonly<Record<string, string>> = {
  jpg: 'image/jpeg',
  png: 'image/png',
  webp: 'image/webp',
  tif: 'image/tiff',
};

/** Longest the job waits for the transparency log to sequence a certificate, counted from its issue. */
export const TRANSPARENCY_LOG_WAIT_MS = 30_000;
/**
 * Within one attempt the job looks for the certificate in the log this often, for at most this long
 * (sequencing takes under 2 s); past that the attempt ends and the job is retried with backoff.
 */
const LOG_POLL_MS = 200;
const LOG_POLL_WITHIN_ATTEMPT_MS = 5_000;

/** The transparency log (DECISIONS 14), when the deployment has one: the certificate's proof, or null until sequenced. */
export type TransparencyLogLookup = (db: Executor, certificateId: string) => Promise<unknown>;

/** A transient failure whose retry should come soon (the log is sequencing within seconds). */
export class WaitingForTransparencyLog extends Error {
  override name = 'WaitingForTransparencyLog';
}

export interface ContentCredentialsJobDeps {
  db: Executor;
  storage: ObjectStorage;
  clock: Clock;
  pool: CredentialPool;
  /** The chain that signs now (read when the job runs: a new chain applies at once). */
  signer: () => Promise<C2paSigner>;
  issuerUrl: string;
  publicBaseUrl: string;
  generatorVersion: string;
  /** Largest manifest store an uploaded file may already carry (ANALYSIS_MAX_METADATA_BYTES). */
  maxManifestBytes: number;
  transparencyLog?: TransparencyLogLookup;
}

/** Where a credentialed copy is kept: beside the order's other objects, a fresh name each time. */
export function credentialedObjectKey(organizationId: string, certificateId: string, extension: string): string {
  return `orgs/${organizationId.toLowerCase()}/certificates/${certificateId}/content-credentials-${randomBytes(8).toString('hex')}.${extension}`;
}

async function readAll(storage: ObjectStorage, key: string): Promise<Buffer | null> {
  const object = await storage.get(key);
  if (!object) return null;
  const chunks: Buffer[] = [];
  for await (const chunk of object.body) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

export function makeContentCredentialsJob(deps: ContentCredentialsJobDeps): JobHandler {
  return {
    async run(payload, context: JobContext) {
      const certificateId = String(payload.certificate_id ?? '');
      const facts = await readCredentialingFacts(deps.db, certificateId);
      if (!facts || facts.content_credentials !== 'pending') return; // made already (a retried job), or gone
      const unsupported = (note: string) => markContentCredentialsUnsupported(deps.db, certificateId, note);
      if (!facts.asset_key) return unsupported('no asset bytes in object storage');

      let proof: unknown = null;
      if (deps.transparencyLog) {
        const lookup = deps.transparencyLog;
        const waited = () => deps.clock.now().getTime() - facts.issued_at.getTime();
        const attemptEnds = Date.now() + LOG_POLL_WITHIN_ATTEMPT_MS;
        proof = await lookup(deps.db, certificateId);
        while (proof === null && waited() < TRANSPARENCY_LOG_WAIT_MS && Date.now() < attemptEnds && !context.signal.aborted) {
          await new Promise((resolve) => setTimeout(resolve, LOG_POLL_MS));
          proof = await lookup(deps.db, certificateId);
        }
        if (proof === null && waited() < TRANSPARENCY_LOG_WAIT_MS) {
          throw new WaitingForTransparencyLog(`certificate ${certificateId} is not in the transparency log yet`);
        }
      }

      const bytes = await readAll(deps.storage, facts.asset_key);
      if (!bytes) throw new Error(`asset ${facts.asset_key} of certificate ${certificateId} is missing from object storage`);
      const detected = await fileTypeFromBuffer(bytes.subarray(0, 4100));
      const mediaType = detected ? CREDENTIALED_FORMATS[detected.ext] : undefined;
      if (!detected || !mediaType) return unsupported(`format:${detected?.ext.toUpperCase() ?? 'unknown'}`);
      const store = findC2paStore(bytes);
      if (store && store.length > deps.maxManifestBytes) {
        return unsupported(`its Content Credentials take ${mebibytes(store.length)}, above the ${mebibytes(deps.maxManifestBytes)} read`);
      }

      const signer = await deps.signer();
      const assertion = certificateAssertion(facts, deps.issuerUrl, deps.publicBaseUrl, proof);
      const outcome = await deps.pool.credential(
        {
          bytes,
          mediaType,
          definition: manifestDefinition({ title: facts.asset_name, mediaType, generatorVersion: deps.generatorVersion, certificate: assertion }),
          ingredient: parentIngredient(facts.asset_name, mediaType),
          // The job needs the bytes no more: they move to the thread instead of being copied.
          giveBytes: true,
        },
        signer,
        context.signal,
      );
      if (outcome.kind === 'unsupported') return unsupported(`the C2PA library refused the file: ${outcome.reason}`);
      if (outcome.kind === 'retry') throw new Error(`content credentials of certificate ${certificateId}: ${outcome.reason}`);

      const key = credentialedObjectKey(facts.organization_id, certificateId, detected.ext === 'tif' ? 'tif' : detected.ext);
      await deps.storage.put(key, outcome.bytes, mediaType);
      if (!(await markContentCredentialsReady(deps.db, certificateId, key, signer.signerId))) await deps.storage.delete(key);
    },
  };
}
