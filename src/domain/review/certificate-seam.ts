/**
 * SEAM (certs branch): the certificate issued inside the `Certify` decision's transaction. The
 * certificate work provides `issueCertificate(trx, ...)`; until it is merged here, the composition root
 * wires CERTIFICATE_ISSUER_PENDING_CERTS_MERGE, which issues nothing. After the merge, wire the real
 * issuer in src/app/services.ts (reviewCertificateIssuer) and delete the placeholder.
 */
import type { Executor } from '../../storage/database.js';

export interface CertificateRequest {
  orderId: string;
  organizationId: string;
  reviewerEmail: string;
  issuedAt: Date;
}

/** Issues the order's certificate in the caller's transaction; a throw rolls the decision back. */
export type CertificateIssuer = (trx: Executor, request: CertificateRequest) => Promise<void>;

/** Placeholder until the certs branch is merged: issues nothing. */
export const CERTIFICATE_ISSUER_PENDING_CERTS_MERGE: CertificateIssuer = async () => {};
