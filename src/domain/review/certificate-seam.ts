/**
 * The certificate issued with a `Certify` decision (docs/review.md, docs/certificates.md), in two steps:
 * `prepare` before the decision's transaction (the asset's SHA-256: may stream a large object; it writes
 * nothing) and `issue` inside it (the digest recorded, signed, stored; a throw rolls the whole decision
 * back, so a refused decision changes no column).
 */
import type { Db, Executor } from '../../storage/database.js';
import type { ObjectStorage } from '../../storage/object-storage/object-storage.js';
import { AssetBytesMissingError, CertificateNotIssuableError, issueCertificate, readAssetSha256, recordAssetSha256, type CertificateDeps } from '../certificates/index.js';

export interface CertificateRequest {
  orderId: string;
  organizationId: string;
  reviewer: { userId: string; email: string };
  issuedAt: Date;
  /** What `prepare` computed: the asset's SHA-256, recorded on the order by `issue`. */
  prepared: PreparedCertificate | null;
}

export interface PreparedCertificate {
  assetSha256: string;
}

export interface CertificateIssuer {
  /** Before the decision's transaction (slow work such as hashing the asset; writes nothing); a throw refuses the decision. */
  prepare(orderId: string): Promise<PreparedCertificate | null>;
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
        const digest = await readAssetSha256(db, storage, orderId);
        return digest && { assetSha256: digest.sha256 };
      } catch (err) {
        if (err instanceof AssetBytesMissingError) throw new CertificateNotIssuableError('asset_unavailable');
        throw err;
      }
    },
    issue: async (trx, request) => {
      const actor = { kind: 'user' as const, userId: request.reviewer.userId, email: request.reviewer.email, clientId: null };
      if (request.prepared) await recordAssetSha256(trx, request.orderId, request.prepared.assetSha256);
      // issueCertificate records `certificate_issued` in the order's history itself, in this transaction.
      await issueCertificate(trx, certificates, { orderId: request.orderId, actor });
    },
  };
}
