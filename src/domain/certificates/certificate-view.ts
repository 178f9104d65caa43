/** A certificate as the API shows it (DECISIONS 9): `GET /v1/orders/{id}/certificate` and, without `order_id`, `GET /v1/certificates/{id}`. */
import type { CertificateT, PublicCertificateT } from '../../contract/certificate-schemas.js';
import { transparencyLogObject } from '../transparency-log/certificate-log.js';
import type { CertificateRow } from './certificate.repository.js';

export function certificateStatus(row: Pick<CertificateRow, 'revoked_at'>): 'valid' | 'revoked' {
  return row.revoked_at ? 'revoked' : 'valid';
}

export function toPublicCertificateObject(row: CertificateRow): PublicCertificateT {
  return {
    certificate_id: row.certificate_id,
    status: certificateStatus(row),
    issued_at: row.issued_at.toISOString(),
    revoked_at: row.revoked_at?.toISOString() ?? null,
    revocation_reason: row.revocation_reason,
    asset_name: row.asset_name,
    asset_sha256: row.asset_sha256,
    jws: row.jws,
    verify_url: row.verify_url,
    content_credentials: row.content_credentials,
    transparency_log: transparencyLogObject(row.transparency_log),
  };
}

export function toCertificateObject(row: CertificateRow): CertificateT {
  const { certificate_id, ...rest } = toPublicCertificateObject(row);
  return { certificate_id, order_id: row.order_id, ...rest };
}
