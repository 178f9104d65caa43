// The certificate page (/verify/{id}): checks the certificate's signature in the browser with WebCrypto
// against the service's JWKS, checks that it is in the public transparency log (the entry's inclusion
// proof and the checkpoint's Ed25519 signature against /log/key, with the TypeScript client's verifier,
// bundled here), and hashes a chosen or dropped file locally (SHA-256, nothing is uploaded), saying
// plainly whether it is the certified file. The page states what the server recorded; this script lets a
// visitor check it against the published keys alone.
import { parseVerifierKey } from '../../../clients/typescript/src/tlog/note.js';
import { verifyCertificateInLog, type CertificateLogStatus, type TransparencyLogObject } from '../../../clients/typescript/src/tlog/certificate-log.js';
import { TransparencyLogError } from '../../../clients/typescript/src/tlog/errors.js';

type Reason = 'signature' | 'key' | 'issuer' | 'format' | 'mismatch' | 'unavailable' | 'unsupported';

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

class CheckFailure extends Error {
  constructor(
    readonly reason: Reason,
    readonly vars: Record<string, string> = {},
  ) {
    super(reason);
  }
}

const TYP = 'certdesk-certificate+jwt';

/** A message of the page's language (data-msg-* attributes) with its {placeholders} filled in. */
function message(root: HTMLElement, name: string, vars: Record<string, string> = {}): string {
  const template = root.getAttribute(`data-msg-${name}`) ?? name;
  return template.replace(/\{([a-z_]+)\}/g, (whole, key: string) => vars[key] ?? whole);
}

function base64urlBytes(text: string): Uint8Array<ArrayBuffer> {
  if (!/^[A-Za-z0-9_-]*$/.test(text)) throw new CheckFailure('format');
  const b64 = text.replace(/-/g, '+').replace(/_/g, '/') + '==='.slice((text.length + 3) % 4);
  const binary = atob(b64);
  const out = new Uint8Array(new ArrayBuffer(binary.length));
  for (let i = 0; i < binary.length; i++) out[i] = binary.charCodeAt(i);
  return out;
}

function jsonPart(text: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(new TextDecoder().decode(base64urlBytes(text)));
    if (value && typeof value === 'object' && !Array.isArray(value)) return value as Record<string, unknown>;
  } catch (err) {
    if (err instanceof CheckFailure) throw err;
  }
  throw new CheckFailure('format');
}

function hex(buffer: ArrayBuffer): string {
  return Array.from(new Uint8Array(buffer), (b) => b.toString(16).padStart(2, '0')).join('');
}

async function fetchResponse(url: string, accept: string): Promise<Response> {
  let response: Response;
  try {
    // no-cache: revalidate, so a revocation or a new key shows at once.
    response = await fetch(url, { cache: 'no-cache', credentials: 'omit', headers: { accept } });
  } catch {
    throw new CheckFailure('unavailable');
  }
  if (!response.ok) throw new CheckFailure('unavailable');
  return response;
}

async function fetchJson(url: string): Promise<unknown> {
  return (await fetchResponse(url, 'application/json')).json();
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
  if (!window.crypto?.subtle) throw new CheckFailure('unsupported');
  const [record, jwks] = await Promise.all([certificateRecord(root), fetchJson(root.dataset.jwksUrl ?? '')]);
  const cert = record as CertificateRecord;
  if (typeof cert?.jws !== 'string') throw new CheckFailure('unavailable');
  const parts = cert.jws.split('.');
  if (parts.length !== 3) throw new CheckFailure('format');
  const [headerText, payloadText, signatureText] = parts as [string, string, string];
  const header = jsonPart(headerText);
  if (header.alg !== 'ES256' || header.typ !== TYP || typeof header.kid !== 'string') throw new CheckFailure('format');
  const keys = (jwks as { keys?: unknown })?.keys;
  const jwk = Array.isArray(keys) ? (keys as Array<Record<string, unknown>>).find((k) => k.kid === header.kid) : undefined;
  if (!jwk || jwk.kty !== 'EC' || jwk.crv !== 'P-256') throw new CheckFailure('key');
  const key = await crypto.subtle.importKey('jwk', { kty: 'EC', crv: 'P-256', x: String(jwk.x), y: String(jwk.y) }, { name: 'ECDSA', namedCurve: 'P-256' }, false, [
    'verify',
  ]);
  const signature = base64urlBytes(signatureText);
  const signed = new TextEncoder().encode(`${headerText}.${payloadText}`);
  const valid = signature.length === 64 && (await crypto.subtle.verify({ name: 'ECDSA', hash: 'SHA-256' }, key, signature, signed));
  if (!valid) throw new CheckFailure('signature');
  const claims = jsonPart(payloadText);
  if (claims.iss !== root.dataset.issuer) throw new CheckFailure('issuer', { issuer: String(claims.iss) });
  const sha256 = claims.asset_sha256;
  if (claims.jti !== root.dataset.certificateId || typeof sha256 !== 'string' || !/^[0-9a-f]{64}$/.test(sha256) || sha256 !== cert.asset_sha256) {
    throw new CheckFailure('mismatch');
  }
  return { kid: header.kid, sha256, revoked: cert.status !== 'valid' };
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
  const [record, keyText] = await Promise.all([certificateRecord(root), fetchResponse(root.dataset.logKeyUrl ?? '', 'text/plain').then((r) => r.text())]);
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
    if (digest !== certificate.sha256) return show(fileResult!, 'mismatch', message(root, 'mismatch', { name: file.name, sha256: digest }));
    if (certificate.revoked) return show(fileResult!, 'revoked', message(root, 'revoked-match', { name: file.name }));
    show(fileResult!, 'match', message(root, 'match', { name: file.name }));
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
