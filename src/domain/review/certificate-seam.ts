/**
 * The certificate issued with a `Certify` decision (docs/review.md, docs/certificates.md), in two steps:
 * `prepare` before the decision's transaction (the asset's SHA-256: may stream a large object) and `issue`
 * inside it (signed, stored; a throw rolls the whole decision back).
 */
import type { Db, Executor } from '../../storage/database.js';
import type { ObjectStorage } from '../../storage/object-storage/object-storage.js';
import { AssetBytesMissingError, CertificateNotIssuableError, ensureAssetSha256, issueCertificate, type CertificateDeps } from '../certificates/index.js';

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

/**
 * The issuer the composition root wires. An order whose asset bytes are not in object storage (a seeded
 * order, bytes deleted) cannot be certified: 409, nothing applied.
 */
export function reviewCertificateIssuer(db: Db, storage: ObjectStorage, certificates: CertificateDeps): CertificateIssuer {
  return {
    prepare: async (orderId) => {
      try {
        await ensureAssetSha256(db, storage, orderId);
      } catch (err) {
        if (err instanceof AssetBytesMissingError) throw new CertificateNotIssuableError('asset_unavailable');
        throw err;
      }
    },
    issue: async (trx, request) => {
      const actor = { kind: 'user' as const, userId: request.reviewer.userId, email: request.reviewer.email, clientId: null };
      // issueCertificate records `certificate_issued` in the order's history itself, in this transaction.
      await issueCertificate(trx, certificates, { orderId: request.orderId, actor });
    },
  };
}
