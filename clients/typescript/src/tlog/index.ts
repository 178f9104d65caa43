/**
 * The transparency log verifier: C2SP signed notes and checkpoints (Ed25519), RFC 6962 / 9162 proofs,
 * C2SP tlog-tiles, certdesk's entries. Browser and Node 20 alike (fetch and WebCrypto only).
 */
export { TransparencyLogError, type TransparencyLogFailure } from './errors.js';
export { fromBase64, toBase64, toHex } from './bytes.js';
export { parseVerifierKey, ed25519KeyId, openSignedNote, type NoteVerifier, type SignedNote } from './note.js';
export { parseCheckpointText, verifyCheckpoint, describeCheckpoint, type Checkpoint } from './checkpoint.js';
export { leafHash, nodeHash, emptyRoot, rootOf, verifyInclusion, verifyConsistency, inclusionProof, consistencyProof } from './merkle.js';
export { LogReader, TiledTree, tilePath, entryBundlePath, encodeTileIndex, parseEntryBundle, TILE_WIDTH } from './tiles.js';
export { canonicalEntry, parseEntry, certificateSha256, type LogEntry, type LogEntryType } from './entry.js';
export { logVerifier, currentCheckpoint, proveConsistency, auditLog, type ConsistencyResult, type AuditReport, type AuditOptions } from './monitor.js';
export {
  verifyCertificateInLog,
  proofsOfCredentialedFile,
  DEFAULT_LOG_GRACE_MS,
  type TransparencyLogObject,
  type TransparencyLogProof,
  type VerifiedLogEvent,
  type CertificateLogStatus,
  type CertificateLogInput,
} from './certificate-log.js';
