/**
 * The certificate personality's two ends: the entries a certificate's issuance and revocation write (in
 * their own transaction), and the `transparency_log` object the certificate's JSON shows once they are in
 * a published checkpoint (DECISIONS 14).
 */
import type { TransparencyLogT } from '../../contract/certificate-schemas.js';
import type { Executor } from '../../storage/database.js';
import { certificateEntry, type LogEntryKind } from './entries.js';
import { insertLogEntries } from './transparency-log.repository.js';

export interface LoggedCertificate {
  certificate_id: string;
  jws: string;
  issued_at: Date;
  revoked_at?: Date | null;
}

/** Writes the entry of an issuance (at its issue time) in the caller's transaction, the certificate's. */
export async function logCertificateIssued(trx: Executor, certificate: LoggedCertificate): Promise<void> {
  await logCertificatesIssued(trx, [certificate]);
}

/** Many issuances at once (synthetic certificates of tests and benchmarks), in order. */
export async function logCertificatesIssued(trx: Executor, certificates: readonly LoggedCertificate[]): Promise<void> {
  await insertLogEntries(
    trx,
    certificates.map((c) => ({ certificateId: c.certificate_id, kind: 'issued' as const, entry: certificateEntry('issued', c.issued_at, c.jws) })),
  );
}

/** Writes the entry of a revocation (at its revocation time) in the caller's transaction, the revocation's. */
export async function logCertificateRevoked(trx: Executor, certificate: LoggedCertificate): Promise<void> {
  if (!certificate.revoked_at) throw new Error('a revocation entry needs the revocation time');
  await insertLogEntries(trx, [{ certificateId: certificate.certificate_id, kind: 'revoked', entry: certificateEntry('revoked', certificate.revoked_at, certificate.jws) }]);
}

interface PublishedEntry {
  kind: LogEntryKind;
  index: number;
  entry: string;
  /** Hex, 32-byte hashes concatenated. */
  proof: string;
  checkpoint: string;
}

/** The certificate object's `transparency_log` from the row's published entries (JSON text), or null. */
export function transparencyLogObject(published: string | null): TransparencyLogT | null {
  if (!published) return null;
  const entries = JSON.parse(published) as PublishedEntry[];
  const issued = entries.find((e) => e.kind === 'issued');
  if (!issued) return null;
  const revoked = entries.find((e) => e.kind === 'revoked');
  return {
    // The origin is the checkpoint's first line (and the key's name).
    origin: issued.checkpoint.slice(0, issued.checkpoint.indexOf('\n')),
    issued: inclusion(issued),
    revoked: revoked ? inclusion(revoked) : null,
  };
}

function inclusion(e: PublishedEntry): TransparencyLogT['issued'] {
  const proof = Buffer.from(e.proof, 'hex');
  const hashes: string[] = [];
  for (let i = 0; i < proof.length; i += 32) hashes.push(proof.subarray(i, i + 32).toString('base64'));
  return { index: e.index, entry: e.entry, inclusion_proof: hashes, checkpoint: e.checkpoint };
}
