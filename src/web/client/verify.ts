// The certificate page (/verify/{id}): checks the certificate's signature in the browser with WebCrypto
// against the service's JWKS, and hashes a chosen or dropped file locally (SHA-256, nothing is uploaded),
// saying plainly whether it is the certified file. The page states what the server recorded; this script
// lets a visitor check it against the published keys alone.

import { CheckFailure, fetchJson, hex, verifyJws } from './lib/certificate-signature.js';
import { readFileCredentials } from './lib/content-credentials.js';
import { message } from './lib/page-messages.js';

interface CertificateRecord {
  certificate_id: string;
  status: 'valid' | 'revoked';
  asset_sha256: string;
  jws: string;
}

interface VerifiedCertificate {
  kid: string;
  sha256: string;
  revoked: boolean;
}

/**
 * Verifies the certificate the API serves for this page: compact JWS, ES256, `typ`, a key of the JWKS
 * by `kid`, the issuer, and that the signed claims are this certificate's.
 */
async function verifyCertificate(root: HTMLElement): Promise<VerifiedCertificate> {
  const [record, jwks] = await Promise.all([fetchJson(root.dataset.certificateUrl ?? ''), fetchJson(root.dataset.jwksUrl ?? '')]);
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

function show(element: HTMLElement, result: string, text: string): void {
  element.dataset.result = result;
  element.textContent = text;
}

function setUp(root: HTMLElement): void {
  const signatureResult = document.getElementById('signature-result');
  const fileResult = document.getElementById('file-result');
  const input = document.getElementById('file-to-check') as HTMLInputElement | null;
  const dropZone = document.getElementById('drop-zone');
  if (!signatureResult || !fileResult || !input || !dropZone) return;

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

  input.addEventListener('change', () => {
    const file = input.files?.[0];
    if (file) void check(file);
  });
  dropZone.addEventListener('dragover', (event) => {
    event.preventDefault();
    dropZone.classList.add('dragging');
  });
  dropZone.addEventListener('dragleave', () => dropZone.classList.remove('dragging'));
  dropZone.addEventListener('drop', (event) => {
    event.preventDefault();
    dropZone.classList.remove('dragging');
    const file = event.dataTransfer?.files[0];
    if (file) void check(file);
  });
}

const root = document.getElementById('certificate-check');
if (root) setUp(root);
