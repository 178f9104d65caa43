/**
 * `verifyCertificate(jws, jwks)`: checks a certdesk certificate offline, with the JWKS alone
 * (`/.well-known/jwks.json`, fetched once and kept): the signature (ES256 only), the header
 * `typ: certdesk-certificate+jwt`, and the claims a certificate always has. It does not say whether the
 * certificate was revoked since: that needs `GET /v1/certificates/{id}` (`status`).
 *
 * With the log key (`logKey`), or the service's base URL (`baseUrl`: the key then comes from
 * `<baseUrl>/log/key` and the certificate's `transparency_log` from `GET /v1/certificates/{id}`), it also
 * checks that the certificate is in the public transparency log (tlog/certificate-log.ts).
 */
import { createLocalJWKSet, jwtVerify, type JSONWebKeySet } from 'jose';
import { verifyCertificateInLog, type CertificateLogStatus, type TransparencyLogObject } from './tlog/certificate-log.js';
import { TransparencyLogError } from './tlog/errors.js';
import { parseVerifierKey } from './tlog/note.js';
import { LogReader } from './tlog/tiles.js';

export const CERTIFICATE_TYPE = 'certdesk-certificate+jwt';

export interface CertificateClaims {
  iss: string;
  /** The certificate id. */
  jti: string;
  iat: number;
  /** The order id. */
  sub: string;
  org_id: string;
  org_name: string;
  asset_name: string;
  /** Lowercase hex SHA-256 of the asset's bytes as uploaded. */
  asset_sha256: string;
  asset_media_type: string;
  verify_url: string;
}

export interface VerifyCertificateOptions {
  /** Also require this issuer (`iss`). */
  issuer?: string;
  /**
   * The log's verifier key string (`<name>+<key id>+<key>`, as `/log/key` and the docs print it). Given
   * (or with `baseUrl`), the certificate's inclusion in the transparency log is checked too.
   */
  logKey?: string;
  /** The service's public base URL: where the log key (unless `logKey`) and the certificate's log data (unless `transparencyLog`) are fetched. */
  baseUrl?: string;
  /** The certificate JSON's `transparency_log` (null: not yet sequenced); fetched from `baseUrl` when absent. */
  transparencyLog?: TransparencyLogObject | null;
  /** The certificate JSON's `revoked_at`, if revoked: the revocation must then be in the log too (after the grace period). */
  revokedAt?: string | null;
  /** How long an event may be missing from the log (default 60 s). */
  logGraceMs?: number;
  fetch?: typeof fetch;
  now?: () => number;
}

export interface VerifiedCertificate {
  claims: CertificateClaims;
  kid: string | undefined;
  /** The log check's outcome, when one was asked for (`logKey` or `baseUrl`). */
  transparencyLog?: CertificateLogStatus;
}

const REQUIRED: Array<keyof CertificateClaims> = ['iss', 'jti', 'iat', 'sub', 'org_id', 'org_name', 'asset_name', 'asset_sha256', 'asset_media_type', 'verify_url'];

/**
 * The certificate's claims when it verifies; throws (a jose error, `Error` for a missing claim, or
 * `TransparencyLogError` when the log check fails, including a certificate missing from the log more than
 * `logGraceMs` after its issue) otherwise.
 */
export async function verifyCertificate(jws: string, jwks: JSONWebKeySet, options: VerifyCertificateOptions = {}): Promise<VerifiedCertificate> {
  const { payload, protectedHeader } = await jwtVerify(jws, createLocalJWKSet(jwks), {
    algorithms: ['ES256'],
    typ: CERTIFICATE_TYPE,
    ...(options.issuer ? { issuer: options.issuer } : {}),
  });
  for (const claim of REQUIRED) {
    if (payload[claim] === undefined) throw new Error(`certificate claim ${claim} is missing`);
  }
  if (!/^[0-9a-f]{64}$/.test(String(payload.asset_sha256))) throw new Error('certificate claim asset_sha256 is not a lowercase hex SHA-256');
  const claims = payload as unknown as CertificateClaims;
  if (options.logKey === undefined && options.baseUrl === undefined) return { claims, kid: protectedHeader.kid };
  return { claims, kid: protectedHeader.kid, transparencyLog: await checkLog(jws, claims, options) };
}

async function checkLog(jws: string, claims: CertificateClaims, options: VerifyCertificateOptions): Promise<CertificateLogStatus> {
  const fetchImpl = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
  const base = options.baseUrl?.replace(/\/+$/, '');
  if (!base && options.transparencyLog === undefined) throw new TypeError('verifyCertificate: the log check needs transparencyLog or baseUrl');
  let keyString = options.logKey;
  if (keyString === undefined) keyString = await LogReader.ofService(base!, fetchImpl).key();
  let transparencyLog = options.transparencyLog;
  let revokedAt = options.revokedAt;
  if (transparencyLog === undefined) {
    const url = `${base}/v1/certificates/${encodeURIComponent(claims.jti)}`;
    let response: globalThis.Response;
    try {
      response = await fetchImpl(url, { headers: { accept: 'application/json' }, cache: 'no-cache', credentials: 'omit' });
    } catch (error) {
      throw new TransparencyLogError('unavailable', `could not read ${url}: ${(error as Error).message}`);
    }
    if (!response.ok) throw new TransparencyLogError('unavailable', `${url} answered ${response.status}`);
    const body = (await response.json()) as { transparency_log?: TransparencyLogObject | null; revoked_at?: string | null };
    transparencyLog = body.transparency_log ?? null;
    if (revokedAt === undefined) revokedAt = body.revoked_at ?? null;
  }
  return verifyCertificateInLog({
    jws,
    issuedAtSeconds: claims.iat,
    transparencyLog,
    logKey: await parseVerifierKey(keyString),
    revokedAt: revokedAt ?? null,
    now: (options.now ?? Date.now)(),
    ...(options.logGraceMs !== undefined ? { graceMs: options.logGraceMs } : {}),
  });
}
