/** Certificates of Human Certified orders (DECISIONS 9): issue, revoke, read, verify; see docs/certificates.md. */
export { assetSha256, ensureAssetSha256, readAssetSha256, AssetBytesMissingError } from './asset-digest.js';
export { recordAssetSha256 } from './certificate.repository.js';
export {
  CERTIFICATE_ALG,
  CERTIFICATE_CLAIMS,
  CERTIFICATE_TYP,
  CertificateVerificationError,
  signCertificate,
  verifyCertificate,
  type CertificateClaims,
  type CertificateSigningKey,
} from './certificate-jws.js';
export {
  CertificateAlreadyRevokedError,
  CertificateNotFoundError,
  CertificateNotIssuableError,
  findCertificateByOrder,
  findOrderCertificate,
  findOrderCertificateFile,
  findPublicCertificate,
  findPublicCertificates,
  InvalidRevocationReasonError,
  isCertificateId,
  issueCertificate,
  MAX_REVOCATION_REASON,
  revokeCertificate,
  revokeCertificateNow,
  type CertificateDeps,
  type IssueCertificateInput,
} from './certificate.service.js';
export { certificateStatus, toCertificateObject, toPublicCertificateObject } from './certificate-view.js';
export type { CertificateFileRow, CertificateRow } from './certificate.repository.js';
