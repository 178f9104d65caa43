/**
 * `verifyCertificate(jws, jwks)`: checks a certdesk certificate offline, with the JWKS alone
 * (`/.well-known/jwks.json`, fetched once and kept): the signature (ES256 only), the header
 * `typ: certdesk-certificate+jwt`, and the claims a certificate always has. It does not say whether the
 * certificate was revoked since: that needs `GET /v1/certificates/{id}` (`status`).
 */
import { createLocalJWKSet, jwtVerify, type JSONWebKeySet } from 'jose';

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
}

const REQUIRED: Array<keyof CertificateClaims> = ['iss', 'jti', 'iat', 'sub', 'org_id', 'org_name', 'asset_name', 'asset_sha256', 'asset_media_type', 'verify_url'];

/** The certificate's claims when it verifies; throws (a jose error, or `Error` for a missing claim) otherwise. */
export async function verifyCertificate(jws: string, jwks: JSONWebKeySet, options: VerifyCertificateOptions = {}): Promise<{ claims: CertificateClaims; kid: string | undefined }> {
  const { payload, protectedHeader } = await jwtVerify(jws, createLocalJWKSet(jwks), {
    algorithms: ['ES256'],
    typ: CERTIFICATE_TYPE,
    ...(options.issuer ? { issuer: options.issuer } : {}),
  });
  for (const claim of REQUIRED) {
    if (payload[claim] === undefined) throw new Error(`certificate claim ${claim} is missing`);
  }
  if (!/^[0-9a-f]{64}$/.test(String(payload.asset_sha256))) throw new Error('certificate claim asset_sha256 is not a lowercase hex SHA-256');
  return { claims: payload as unknown as CertificateClaims, kid: protectedHeader.kid };
}
