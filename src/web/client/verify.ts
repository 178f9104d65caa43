// The certificate page (/verify/{id}): checks the certificate's signature in the browser with WebCrypto
// against the service's JWKS, checks that it is in the public transparency log (the entry's inclusion
// proof and the checkpoint's Ed25519 signature against /log/key, with the TypeScript client's verifier,
// bundled here), and hashes a chosen or dropped file locally (SHA-256, nothing is uploaded), saying
// plainly whether it is the certified file. The page states what the server recorded; this script lets a
// visitor check it against the published keys alone.
import { parseVerifierKey } from '../../../clients/typescript/src/tlog/note.js';
import { verifyCertificateInLog, type CertificateLogStatus, type TransparencyLogObject } from '../../../clients/typescript/src/tlog/certificate-log.js';
import { TransparencyLogError } from '../../../clients/typescript/src/tlog/errors.js';
import { CheckFailure, fetchJson, fetchText, hex, jsonPart, verifyJws } from './lib/certificate-signature.js';
import { readFileCredentials } from './lib/content-credentials.js';
import { message } from './lib/page-messages.js';
import { onFileChosen } from './lib/file-picker.js';

interface CertificateRecord {
  certificate_id: string;
  status: 'valid' | 'revoked';
  asset_sha256: string;
  jws: string;
  revoked_at: string | null;
  transparency_log?: TransparencyLogObject | null;
}

interface VerifiedCertificate {
  kid: string;
  sha256: string;
  revoked: boolean;
}

/** The certificate's record, fetched once for both checks. */
let recordRequest: Promise<unknown> | null = null;
function certificateRecord(root: HTMLElement): Promise<unknown> {
  recordRequest ??= fetchJson(root.dataset.certificateUrl ?? '');
  return recordRequest;
}

/**
 * Verifies the certificate the API serves for this page: compact JWS, ES256, `typ`, a key of the JWKS
 * by `kid`, the issuer, and that the signed claims are this certificate's.
 */
async function verifyCertificate(root: HTMLElement): Promise<VerifiedCertificate> {
  const [record, jwks] = await Promise.all([certificateRecord(root), fetchJson(root.dataset.jwksUrl ?? '')]);
  const cert = record as CertificateRecord;
  if (typeof cert?.jws !== 'string') throw new CheckFailure('unavailable');
  const { kid, claims } = await verifyJws(cert.jws, jwks, root.dataset.issuer ?? '');
  const sha256 = claims.asset_sha256;
  if (claims.jti !== root.dataset.certificateId || typeof sha256 !== 'string' || !/^[0-9a-f]{64}$/.test(sha256) || sha256 !== cert.asset_sha256) {
    throw new CheckFailure('mismatch');
  }
  return { kid, sha256, revoked: cert.status !== 'valid' };
}

/**
 * Whether `file` is this certificate's credentialed copy: the asset with the certificate embedded as
 * Content Credentials (its bytes differ from the upload by the manifest). It is when its active
 * manifest, signed by certdesk and intact, names this certificate and this asset digest.
 */
async function credentialedMatch(root: HTMLElement, file: File, certificate: VerifiedCertificate): Promise<'match' | 'altered' | 'no'> {
  let reading;
  try {
    reading = await readFileCredentials(file, { wasm: root.dataset.c2paWasmUrl ?? '', trustAnchors: root.dataset.trustAnchorsUrl ?? '' });
  } catch {
    return 'no'; // unreadable Content Credentials: certainly not the credentialed copy
  }
  if (reading.kind !== 'certdesk') return 'no';
  const { assertion } = reading;
  if (assertion.certificate_id !== root.dataset.certificateId || assertion.asset_sha256 !== certificate.sha256 || assertion.issuer !== root.dataset.issuer) return 'no';
  if (!reading.intact) return 'altered';
  return reading.trusted ? 'match' : 'no';
}

/** The iat claim of a compact JWS (read, not trusted: the log entry must match the signed certificate). */
function issuedAtSeconds(jws: string): number {
  const claims = jsonPart(jws.split('.')[1] ?? '');
  if (typeof claims.iat !== 'number') throw new CheckFailure('format');
  return claims.iat;
}

/**
 * The transparency log check: the certificate's entry is its own (SHA-256 of the JWS), the checkpoint
 * carries the signature of the key at /log/key, and the inclusion proof leads to that checkpoint's root.
 */
async function checkLog(root: HTMLElement): Promise<CertificateLogStatus> {
  const [record, keyText] = await Promise.all([certificateRecord(root), fetchText(root.dataset.logKeyUrl ?? '')]);
  const cert = record as CertificateRecord;
  if (typeof cert?.jws !== 'string') throw new CheckFailure('unavailable');
  return verifyCertificateInLog({
    jws: cert.jws,
    issuedAtSeconds: issuedAtSeconds(cert.jws),
    transparencyLog: cert.transparency_log ?? null,
    logKey: await parseVerifierKey(keyText),
    revokedAt: cert.revoked_at ?? null,
  });
}

function logMessage(root: HTMLElement, status: CertificateLogStatus): string {
  if (status.status === 'pending') return message(root, 'log-pending', { seconds: String(Math.max(0, Math.round(status.issuedAgoMs / 1000))) });
  const included = message(root, 'log-included', {
    origin: status.origin,
    index: String(status.issued.index),
    size: String(status.issued.checkpoint.size),
    key: root.dataset.logKeyUrl ?? '',
  });
  if (status.revoked) return `${included} ${message(root, 'log-revocation', { index: String(status.revoked.index) })}`;
  return included;
}

function logFailureReason(err: unknown): string {
  if (err instanceof TransparencyLogError) {
    if (['missing', 'signature', 'inclusion', 'entry', 'unavailable', 'unsupported'].includes(err.reason)) return err.reason;
    return 'malformed';
  }
  if (err instanceof CheckFailure && err.reason === 'unavailable') return 'unavailable';
  return 'malformed';
}

function show(element: HTMLElement, result: string, text: string): void {
  element.dataset.result = result;
  element.textContent = text;
}

function setUp(root: HTMLElement): void {
  const signatureResult = document.getElementById('signature-result');
  const fileResult = document.getElementById('file-result');
  const input = document.getElementById('file-to-check') as HTMLInputElement | null;
  const dropZone = document.getElementById('drop-zone');
  const logResult = document.getElementById('log-result');
  if (!signatureResult || !fileResult || !input || !dropZone || !logResult) return;

  checkLog(root).then(
    (status) => show(logResult, status.status === 'pending' ? 'pending' : 'valid', logMessage(root, status)),
    (err: unknown) => show(logResult, 'invalid', message(root, 'log-failed', { reason: message(root, `log-reason-${logFailureReason(err)}`) })),
  );

  const verified: Promise<VerifiedCertificate | null> = verifyCertificate(root).then(
    (certificate) => {
      show(signatureResult, 'valid', message(root, 'valid', { jwks: root.dataset.jwksUrl ?? '', kid: certificate.kid }));
      return certificate;
    },
    (err: unknown) => {
      const failure = err instanceof CheckFailure ? err : new CheckFailure('signature');
      show(signatureResult, 'invalid', message(root, 'invalid', { reason: message(root, `reason-${failure.reason}`, failure.vars) }));
      return null;
    },
  );

  let checking = 0;
  async function check(file: File): Promise<void> {
    const mine = ++checking;
    show(fileResult!, 'hashing', message(root, 'hashing', { name: file.name }));
    // The whole file is read in this tab and hashed here; nothing leaves the browser.
    const digest = hex(await crypto.subtle.digest('SHA-256', await file.arrayBuffer()));
    const certificate = await verified;
    if (mine !== checking) return; // a newer file was chosen meanwhile
    if (!certificate) return show(fileResult!, 'unverified', message(root, 'unverified'));
    let credentialed = false;
    if (digest !== certificate.sha256) {
      // Not the bytes as uploaded: perhaps the copy with the certificate embedded (read only now, so the
      // reference implementation's WebAssembly is fetched only for such a file).
      show(fileResult!, 'hashing', message(root, 'reading-credentials', { name: file.name }));
      const found = await credentialedMatch(root, file, certificate);
      if (mine !== checking) return;
      if (found === 'altered') return show(fileResult!, 'mismatch', message(root, 'credentialed-altered', { name: file.name }));
      if (found === 'no') return show(fileResult!, 'mismatch', message(root, 'mismatch', { name: file.name, sha256: digest }));
      credentialed = true;
    }
    if (certificate.revoked) return show(fileResult!, 'revoked', message(root, 'revoked-match', { name: file.name }));
    show(fileResult!, 'match', message(root, credentialed ? 'credentialed-match' : 'match', { name: file.name }));
  }

  onFileChosen(input, dropZone, (file) => void check(file));
}

const root = document.getElementById('certificate-check');
if (root) setUp(root);
