/**
 * The certificate as a compact JWS (ES256), DECISIONS 9: header exactly `{alg, kid, typ}`, claims exactly
 * `iss, jti, iat, sub, org_id, org_name, asset_name, asset_sha256, asset_media_type, verify_url`. Signed by
 * the service's signing keys (src/oauth/keys/), verified by anyone with the JWKS alone.
 */
import { createLocalJWKSet, errors as joseErrors, jwtVerify, SignJWT, type JSONWebKeySet } from 'jose';

export const CERTIFICATE_TYP = 'certdesk-certificate+jwt';
export const CERTIFICATE_ALG = 'ES256';

export interface CertificateClaims {
  /** The issuer URL (ISSUER_URL). */
  iss: string;
  /** The certificate id (a random UUID). */
  jti: string;
  /** Issue time, Unix seconds. */
  iat: number;
  /** The order id. */
  sub: string;
  org_id: string;
  org_name: string;
  asset_name: string;
  /** Lowercase hex SHA-256 of the asset's bytes as uploaded. */
  asset_sha256: string;
  asset_media_type: string;
  /** `<public base URL>/verify/<certificate id>`. */
  verify_url: string;
}

export const CERTIFICATE_CLAIMS = [
  'iss',
  'jti',
  'iat',
  'sub',
  'org_id',
  'org_name',
  'asset_name',
  'asset_sha256',
  'asset_media_type',
  'verify_url',
] as const satisfies ReadonlyArray<keyof CertificateClaims>;

/** The key that signs: the key store's current signing key. */
export interface CertificateSigningKey {
  kid: string;
  privateKey: CryptoKey;
}

export async function signCertificate(key: CertificateSigningKey, claims: CertificateClaims): Promise<string> {
  // Only the listed claims, in a fixed order: nothing else ever ends up in a certificate.
  const payload: Record<string, string | number> = {};
  for (const name of CERTIFICATE_CLAIMS) payload[name] = claims[name];
  return new SignJWT(payload).setProtectedHeader({ alg: CERTIFICATE_ALG, kid: key.kid, typ: CERTIFICATE_TYP }).sign(key.privateKey);
}

/** Why a JWS is not a valid certdesk certificate. */
export class CertificateVerificationError extends Error {
  override name = 'CertificateVerificationError';
}

const SHA256_HEX = /^[0-9a-f]{64}$/;

/**
 * Verifies a certificate offline against a JWKS: the signature (ES256, a key of the set by `kid`), `typ`,
 * the issuer, and that every claim is present with its type. The same check the docs show with `jose`.
 * @throws CertificateVerificationError with a plain reason.
 */
export async function verifyCertificate(jws: string, jwks: JSONWebKeySet, options: { issuer: string }): Promise<CertificateClaims> {
  let payload: Record<string, unknown>;
  try {
    ({ payload } = await jwtVerify(jws, createLocalJWKSet(jwks), { algorithms: [CERTIFICATE_ALG], typ: CERTIFICATE_TYP, issuer: options.issuer }));
  } catch (err) {
    if (err instanceof joseErrors.JWKSNoMatchingKey) throw new CertificateVerificationError('signed by a key that is not in the JWKS');
    if (err instanceof joseErrors.JWSSignatureVerificationFailed) throw new CertificateVerificationError('the signature does not match');
    if (err instanceof joseErrors.JWTClaimValidationFailed) throw new CertificateVerificationError(`claim ${err.claim}: ${err.reason}`);
    throw new CertificateVerificationError(`not a valid certificate: ${(err as Error).message}`);
  }
  for (const name of CERTIFICATE_CLAIMS) {
    const want = name === 'iat' ? 'number' : 'string';
    if (typeof payload[name] !== want) throw new CertificateVerificationError(`claim ${name} is missing or not a ${want}`);
  }
  if (!SHA256_HEX.test(payload.asset_sha256 as string)) throw new CertificateVerificationError('claim asset_sha256 is not lowercase hex SHA-256');
  return payload as unknown as CertificateClaims;
}
