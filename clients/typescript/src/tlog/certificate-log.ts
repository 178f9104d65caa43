/**
 * Whether a certificate is in the transparency log, from the `transparency_log` object of its JSON
 * (`{"origin", "issued": {"index", "entry", "inclusion_proof", "checkpoint"}, "revoked": null | {...}}`):
 * each entry must be the canonical entry of this certificate (SHA-256 of its JWS, the right event, the
 * issue time of its `iat`), its checkpoint must carry the log key's signature, and its inclusion proof
 * must lead from the entry to that checkpoint's root. A certificate not yet in the log is "pending" for a
 * grace period after it was issued (the log sequences within seconds), "missing" after it.
 */
import { fromBase64, utf8, type Bytes } from './bytes.js';
import { verifyCheckpoint, type Checkpoint } from './checkpoint.js';
import { certificateSha256, parseEntry, type LogEntry, type LogEntryType } from './entry.js';
import { TransparencyLogError } from './errors.js';
import { leafHash, verifyInclusion } from './merkle.js';
import type { NoteVerifier } from './note.js';

/** The proof of one event, as the certificate JSON carries it. */
export interface TransparencyLogProof {
  index: number;
  entry: string;
  inclusion_proof: string[];
  checkpoint: string;
}

/** `transparency_log` of the certificate JSON (null until the issuance is sequenced). */
export interface TransparencyLogObject {
  origin: string;
  issued: TransparencyLogProof;
  revoked: TransparencyLogProof | null;
}

export interface VerifiedLogEvent {
  /** The entry's 0-based index in the log. */
  index: number;
  entry: LogEntry;
  /** The signed checkpoint the inclusion proof leads to. */
  checkpoint: Checkpoint;
}

export type CertificateLogStatus =
  | { status: 'included'; origin: string; issued: VerifiedLogEvent; revoked: VerifiedLogEvent | null; revocationPending: boolean }
  /** Not yet in the log, but issued less than the grace period ago. */
  | { status: 'pending'; issuedAgoMs: number };

/** How long after its issue (or revocation) an event may be missing from the log before that is a failure. */
export const DEFAULT_LOG_GRACE_MS = 60_000;

export interface CertificateLogInput {
  jws: string;
  /** The certificate's `iat` (seconds): the issued entry's `at` must fall in that second. */
  issuedAtSeconds: number;
  transparencyLog: TransparencyLogObject | null | undefined;
  logKey: NoteVerifier;
  /** When the service says the certificate was revoked (its JSON's `revoked_at`), if it was. */
  revokedAt?: string | null;
  now?: number;
  graceMs?: number;
}

/**
 * The proofs to check for a credentialed file: the issuance proof the file carries (written into it when it
 * was credentialed) with the revocation proof of the certificate's live record. A file credentialed before
 * its certificate was revoked carries no revocation proof, and never will: without the record's, a
 * revocation older than the grace period would read as missing from the log.
 * @example verifyCertificateInLog({ ...input, transparencyLog: proofsOfCredentialedFile(carried, record.transparency_log) })
 */
export function proofsOfCredentialedFile(carried: TransparencyLogObject | null | undefined, live: TransparencyLogObject | null | undefined): TransparencyLogObject | null {
  if (!carried) return live ?? null;
  if (carried.revoked || !live?.revoked || live.origin !== carried.origin) return carried;
  return { ...carried, revoked: live.revoked };
}

async function verifyEvent(proof: TransparencyLogProof, type: LogEntryType, jwsSha256: string, origin: string, logKey: NoteVerifier): Promise<VerifiedLogEvent> {
  const what = type === 'certificate.issued' ? 'issuance' : 'revocation';
  if (!proof || typeof proof.entry !== 'string' || !Number.isSafeInteger(proof.index) || proof.index < 0 || !Array.isArray(proof.inclusion_proof) || typeof proof.checkpoint !== 'string') {
    throw new TransparencyLogError('format', `the log proof of the ${what} is malformed`);
  }
  const entry = parseEntry(proof.entry);
  if (entry.type !== type) throw new TransparencyLogError('entry', `the ${what} entry is of type ${entry.type}`);
  if (entry.certificate_sha256 !== jwsSha256) throw new TransparencyLogError('entry', `the ${what} entry is of another certificate (SHA-256 ${entry.certificate_sha256})`);
  const checkpoint = await verifyCheckpoint(proof.checkpoint, logKey);
  if (checkpoint.origin !== origin) throw new TransparencyLogError('origin', `the ${what} checkpoint is of the log ${checkpoint.origin}, not ${origin}`);
  const path: Bytes[] = proof.inclusion_proof.map((hash) => {
    const decoded = typeof hash === 'string' ? fromBase64(hash) : null;
    if (!decoded) throw new TransparencyLogError('format', `the ${what} inclusion proof has a hash that is not base64`);
    return decoded;
  });
  const included = await verifyInclusion(leafHash(utf8(proof.entry)), proof.index, checkpoint.size, path, checkpoint.rootHash);
  if (!included) {
    throw new TransparencyLogError('inclusion', `the ${what} entry ${proof.index} is not proven included in the checkpoint of size ${checkpoint.size}`);
  }
  return { index: proof.index, entry, checkpoint };
}

/** Checks a certificate's place in the log; throws `TransparencyLogError` when anything does not hold. */
export async function verifyCertificateInLog(input: CertificateLogInput): Promise<CertificateLogStatus> {
  const now = input.now ?? Date.now();
  const grace = input.graceMs ?? DEFAULT_LOG_GRACE_MS;
  const log = input.transparencyLog;
  if (!log) {
    const issuedAgoMs = now - input.issuedAtSeconds * 1000;
    if (issuedAgoMs > grace) {
      throw new TransparencyLogError('missing', `the certificate is not in the transparency log ${Math.floor(issuedAgoMs / 1000)} s after it was issued`);
    }
    return { status: 'pending', issuedAgoMs };
  }
  if (typeof log.origin !== 'string' || log.origin !== input.logKey.name) {
    throw new TransparencyLogError('origin', `the certificate names the log ${String(log.origin)}, not ${input.logKey.name}`);
  }
  const jwsSha256 = await certificateSha256(input.jws);
  const issued = await verifyEvent(log.issued, 'certificate.issued', jwsSha256, log.origin, input.logKey);
  if (Math.floor(Date.parse(issued.entry.at) / 1000) !== input.issuedAtSeconds) {
    throw new TransparencyLogError('entry', `the issuance entry says ${issued.entry.at}, not the certificate's issue time`);
  }
  let revoked: VerifiedLogEvent | null = null;
  let revocationPending = false;
  if (log.revoked) {
    revoked = await verifyEvent(log.revoked, 'certificate.revoked', jwsSha256, log.origin, input.logKey);
    if (revoked.index <= issued.index) throw new TransparencyLogError('entry', 'the revocation entry comes before the issuance entry in the log');
  } else if (input.revokedAt) {
    const revokedAgoMs = now - Date.parse(input.revokedAt);
    if (revokedAgoMs > grace) {
      throw new TransparencyLogError('missing', `the revocation is not in the transparency log ${Math.floor(revokedAgoMs / 1000)} s after it was made`);
    }
    revocationPending = true;
  }
  return { status: 'included', origin: log.origin, issued, revoked, revocationPending };
}
