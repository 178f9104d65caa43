/**
 * `certdesk-client verify FILE`: reads the file's Content Credentials with the C2PA reference
 * implementation (`@contentauth/c2pa-wasm`, c2pa-rs compiled to WebAssembly, loaded only by this
 * command), validated against certdesk's C2PA trust anchors; checks the embedded certificate's JWS
 * against the JWKS and that it is the certificate the manifest names; asks the public route for its
 * live status. Public routes only: no client id or secret is needed, only the base URL.
 *
 * The verdict is `ok` only for an intact file (bytes and manifest as signed) whose manifest certdesk
 * signed and whose certificate verifies and is valid today.
 */
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { verifyCertificate, type CertificateClaims } from '../certificate.js';
import { assertionDisagreement, readContentCredentials, type ContentCredentialsReading } from '../content-credentials.js';
import { DEFAULT_RETRY } from '../retry.js';
import { proofsOfCredentialedFile, type CertificateLogStatus, type TransparencyLogObject } from '../tlog/certificate-log.js';
import { TransparencyLogError } from '../tlog/errors.js';
import { defaultSleep, Transport } from '../transport.js';
import type { PublicCertificate } from '../types.js';

export interface FileReport {
  file: string;
  /** `certdesk`: a certdesk certificate; `other`: someone else's Content Credentials; `none`: no Content Credentials. */
  content_credentials: 'certdesk' | 'other' | 'none';
  /** Bytes and manifest as signed (null without Content Credentials). */
  intact: boolean | null;
  /** The manifest's signer chains to certdesk's trust anchors. */
  signed_by_certdesk: boolean;
  signer: string | null;
  claim_generator: string | null;
  validation_failures: string[];
  certificate_id: string | null;
  /** The certificate's signature against the JWKS: `valid`, or why not. */
  signature: string | null;
  organization: string | null;
  asset_name: string | null;
  issued_at: string | null;
  /** The live status from the public route. */
  status: 'valid' | 'revoked' | null;
  revoked_at: string | null;
  revocation_reason: string | null;
  verify_url: string | null;
  /** The certificate's issuance entry in the transparency log (0-based), when the log check proved it. */
  transparency_log_index: number | null;
  /** The transparency log check, in words: proven (and whether by the proof the file carries), pending, not checked, or why it failed. */
  transparency_log: string | null;
}

export interface VerifyOutcome {
  report: FileReport;
  /** Null when the file is an intact, certdesk-signed file with a valid certificate; else the one-line reason. */
  failure: string | null;
}

export interface VerifyFileOptions {
  baseUrl: string;
  /** PEM of the trust anchors to use instead of the service's `/.well-known/c2pa-trust-anchors.pem`. */
  trustAnchorsPem?: string;
  /** The transparency log's verifier key instead of the service's `/log/key`. */
  logKey?: string;
  timeoutMs?: number;
  onRetry?: ConstructorParameters<typeof Transport>[0]['onRetry'];
}

/** The reference implementation's reader, its WebAssembly loaded from the installed package on first use. */
async function c2paReader(): Promise<typeof import('@contentauth/c2pa-wasm').WasmReader> {
  const c2pa = await import('@contentauth/c2pa-wasm');
  const wasm = createRequire(import.meta.url).resolve('@contentauth/c2pa-wasm/c2pa.wasm');
  c2pa.initSync({ module: await readFile(wasm) });
  return c2pa.WasmReader;
}

function publicTransport(options: VerifyFileOptions): Transport {
  return new Transport({
    baseUrl: options.baseUrl,
    fetch: (input, init) => globalThis.fetch(input, init),
    tokens: null,
    timeoutMs: options.timeoutMs ?? 30_000,
    retry: DEFAULT_RETRY,
    sleep: defaultSleep,
    now: Date.now,
    random: Math.random,
    headers: {},
    ...(options.onRetry ? { onRetry: options.onRetry } : {}),
  });
}

function logWords(status: CertificateLogStatus, carried: boolean): string {
  if (status.status === 'pending') return `pending: not yet in the log (issued ${Math.round(status.issuedAgoMs / 1000)} s ago)`;
  const revoked = status.revoked ? `, revoked at entry ${status.revoked.index}` : '';
  return `proven${carried ? ' by the proof in the file' : ''}: entry ${status.issued.index} of ${status.origin}, against its signed checkpoint of ${status.issued.checkpoint.size} entries${revoked}`;
}

export async function verifyFile(file: string, options: VerifyFileOptions): Promise<VerifyOutcome> {
  const transport = publicTransport(options);
  const bytes = new Uint8Array(await readFile(file));
  const anchors = options.trustAnchorsPem ?? (await transport.request<string>({ method: 'GET', path: '/.well-known/c2pa-trust-anchors.pem', auth: false, raw: true })).body;
  let reading: ContentCredentialsReading;
  try {
    reading = await readContentCredentials(await c2paReader(), bytes, anchors);
  } catch (error) {
    throw new Error(`${file}: its Content Credentials cannot be read: ${String(error instanceof Error ? error.message : error)}`);
  }
  const report: FileReport = {
    file,
    content_credentials: reading.kind,
    intact: reading.kind === 'none' ? null : reading.intact,
    signed_by_certdesk: reading.kind === 'certdesk' && reading.trusted,
    signer: reading.kind === 'none' ? null : reading.manifest.signer,
    claim_generator: reading.kind === 'none' ? null : reading.manifest.claimGenerator,
    validation_failures: reading.kind === 'none' ? [] : reading.failures.map((f) => f.code),
    certificate_id: null,
    signature: null,
    organization: null,
    asset_name: null,
    issued_at: null,
    status: null,
    revoked_at: null,
    revocation_reason: null,
    verify_url: null,
    transparency_log_index: null,
    transparency_log: null,
  };
  if (reading.kind === 'none') return { report, failure: `${file} holds no Content Credentials, so no certdesk certificate` };
  if (reading.kind === 'other') {
    const who = [reading.manifest.signer ?? 'an unknown signer', reading.manifest.claimGenerator ? `made with ${reading.manifest.claimGenerator}` : null].filter(Boolean).join(', ');
    return { report, failure: `${file} holds no certdesk certificate: its Content Credentials were signed by ${who}` };
  }

  const { assertion } = reading;
  report.certificate_id = assertion.certificate_id;
  report.verify_url = assertion.verify_url;
  const jwks = (await transport.request<Parameters<typeof verifyCertificate>[1]>({ method: 'GET', path: '/.well-known/jwks.json', auth: false })).body;
  let claims: CertificateClaims | null = null;
  try {
    claims = (await verifyCertificate(assertion.jws, jwks)).claims;
    const disagreement = assertionDisagreement(assertion, claims);
    report.signature = disagreement ? `the certificate's ${disagreement} differs from the manifest's` : 'valid';
  } catch (error) {
    report.signature = `not valid: ${(error as Error).message}`;
  }
  if (claims) {
    report.organization = claims.org_name;
    report.asset_name = claims.asset_name;
  }
  const record = (await transport.request<PublicCertificate>({ method: 'GET', path: `/v1/certificates/${encodeURIComponent(assertion.certificate_id)}`, auth: false })).body;
  report.status = record.status;
  report.issued_at = record.issued_at;
  report.revoked_at = record.revoked_at ?? null;
  report.revocation_reason = record.revocation_reason ?? null;

  // The transparency log: the issuance proof the file carries (a file alone proves its certificate was
  // logged), else the public route's; a revocation's proof always the public route's
  // (proofsOfCredentialedFile); the checkpoint against /log/key (or --log-key).
  let logFailure: string | null = null;
  if (report.signature === 'valid') {
    const carried = assertion.transparency_log as TransparencyLogObject | undefined;
    try {
      const { transparencyLog } = await verifyCertificate(assertion.jws, jwks, {
        baseUrl: options.baseUrl,
        transparencyLog: proofsOfCredentialedFile(carried, (record as { transparency_log?: TransparencyLogObject | null }).transparency_log),
        revokedAt: record.revoked_at ?? null,
        ...(options.logKey ? { logKey: options.logKey } : {}),
      });
      report.transparency_log = logWords(transparencyLog!, carried !== undefined);
      if (transparencyLog!.status === 'included') report.transparency_log_index = transparencyLog!.issued.index;
    } catch (error) {
      if (error instanceof TransparencyLogError && error.reason === 'unavailable') report.transparency_log = `not checked: ${error.message}`;
      else {
        report.transparency_log = `failed: ${(error as Error).message}`;
        logFailure = `the certificate in ${file} fails the transparency log check: ${(error as Error).message}`;
      }
    }
  }

  let failure: string | null = null;
  if (!reading.intact) failure = `${file} was altered after certdesk signed it (${report.validation_failures.join(', ')})`;
  else if (!reading.trusted) failure = `${file} claims a certdesk certificate, but its Content Credentials were not signed by this certdesk (signer: ${reading.manifest.signer ?? 'unknown'})`;
  else if (report.signature !== 'valid') failure = `the certificate in ${file} does not verify: ${report.signature}`;
  else if (logFailure) failure = logFailure;
  else if (record.status !== 'valid') failure = `the certificate in ${file} was revoked${record.revocation_reason ? `: ${record.revocation_reason}` : ''}`;
  return { report, failure };
}
