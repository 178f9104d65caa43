/**
 * SEAM (certs branch): the certificate issued with a `Certify` decision. The certificate work provides
 * `ensureAssetSha256` (may stream a large object: run BEFORE the decision's transaction) and
 * `issueCertificate(trx, ...)` (inside it). Until it is merged here, the composition root wires
 * CERTIFICATE_ISSUER_PENDING_CERTS_MERGE, which issues nothing; after the merge, src/app/services.ts
 * wires the real one (reviewCertificateIssuer) and the placeholder goes.
 */
import type { Executor } from '../../storage/database.js';

export interface CertificateRequest {
  orderId: string;
  organizationId: string;
  reviewer: { userId: string; email: string };
  issuedAt: Date;
}

export interface CertificateIssuer {
  /** Before the decision's transaction (slow work such as hashing the asset); a throw refuses the decision. */
  prepare(orderId: string): Promise<void>;
  /** Issues the order's certificate in the decision's transaction; a throw rolls the whole decision back. */
  issue(trx: Executor, request: CertificateRequest): Promise<void>;
}

/** Placeholder until the certs branch is merged: issues nothing. */
export const CERTIFICATE_ISSUER_PENDING_CERTS_MERGE: CertificateIssuer = {
  prepare: async () => {},
  issue: async () => {},
};
