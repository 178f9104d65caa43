/**
 * Synthetic certified orders with real, verifiable certificates, inserted fast (batched multi-row
 * INSERTs, one batch signed while the previous one is written): for tests and for the public-lookup benchmark, which needs
 * 100,000 certificates in PostgreSQL. Never used by the service itself.
 *
 * @example
 * const ids = await insertSyntheticCertificates(handle.db, services.certificates, { organizationId, ownerEmail: 'a@x.test', count: 100_000 });
 */
import { createHash, randomUUID } from 'node:crypto';
import type { Db } from '../../storage/database.js';
import { insertOrderBatch } from '../order-import/order-import.repository.js';
import { toOrderRow, type OrderRow } from '../orders/order-document.js';
import { insertCertificateBatch, type NewCertificateRow } from './certificate.repository.js';
import { signCertificate } from './certificate-jws.js';
import { logCertificatesIssued } from '../transparency-log/certificate-log.js';
import type { CertificateDeps } from './certificate.service.js';

export interface SyntheticCertificateOptions {
  organizationId: string;
  /** Name signed into the certificates (`org_name`). */
  organizationName?: string;
  /** Creator of the orders (personal orders of this e-mail). */
  ownerEmail: string;
  count: number;
  /** Orders and certificates per INSERT (default 1000). */
  batchSize?: number;
  /** Order ids are `<prefix><n>` (default `synthetic-cert-`). */
  orderIdPrefix?: string;
  /**
   * The id of the n-th certificate (default: a random UUID). The benchmark derives ids from n so that
   * pgbench can pick a random one of them in SQL, exactly as the load generator does.
   */
  certificateIdOf?: (n: number) => string;
}

/** Inserts `count` Human Certified orders, each with a signed certificate; returns the certificate ids. */
export async function insertSyntheticCertificates(db: Db, deps: CertificateDeps, options: SyntheticCertificateOptions): Promise<string[]> {
  const batchSize = options.batchSize ?? 1000;
  const prefix = options.orderIdPrefix ?? 'synthetic-cert-';
  const base = deps.publicBaseUrl.replace(/\/+$/, '');
  const key = deps.signingKey();
  const ids: string[] = [];
  // One batch is written while the next one is signed (signing is CPU in this process, writing waits for
  // the database): the previous write's outcome is awaited before the next starts, in order.
  let writing: Promise<unknown> = Promise.resolve(null);
  const settle = async () => {
    const failure = await writing;
    if (failure) throw failure;
  };
  for (let start = 0; start < options.count; start += batchSize) {
    const n = Math.min(batchSize, options.count - start);
    const issuedAt = deps.clock.now();
    const orders: OrderRow[] = [];
    const certificates: Array<Promise<NewCertificateRow>> = [];
    for (let i = start; i < start + n; i++) {
      const orderId = `${prefix}${i}`;
      const assetName = `artwork-${i}.png`;
      orders.push(
        toOrderRow(options.organizationId, {
          order_id: orderId,
          username: options.ownerEmail.split('@')[0]!,
          email: options.ownerEmail,
          order_state: 'Human Certified',
          order_title: `Synthetic ${i}`,
          asset_id: orderId,
          asset_name: assetName,
          asset_last_modified_timestamp: String(Math.floor(issuedAt.getTime() / 1000)),
          ordered_by: null,
          creation_time: issuedAt.toISOString(),
          reviewed_by: 'reviewer@certifier.test',
          review_timestamp: issuedAt.toISOString(),
          project_id: null,
        }),
      );
      const certificateId = options.certificateIdOf?.(i) ?? randomUUID();
      ids.push(certificateId);
      const claims = {
        iss: deps.issuerUrl,
        jti: certificateId,
        iat: Math.floor(issuedAt.getTime() / 1000),
        sub: orderId,
        org_id: options.organizationId,
        org_name: options.organizationName ?? 'Synthetic',
        asset_name: assetName,
        asset_sha256: createHash('sha256').update(orderId).digest('hex'),
        asset_media_type: 'image/png',
        verify_url: `${base}/verify/${certificateId}`,
      };
      certificates.push(
        signCertificate(key, claims).then((jws) => ({
          certificate_id: certificateId,
          order_id: orderId,
          organization_id: options.organizationId,
          kid: key.kid,
          jws,
          asset_name: assetName,
          asset_sha256: claims.asset_sha256,
          asset_media_type: claims.asset_media_type,
          verify_url: claims.verify_url,
          issued_at: issuedAt,
          issued_by: 'reviewer@certifier.test',
        })),
      );
    }
    const rows = await Promise.all(certificates);
    await settle();
    writing = db
      .transaction()
      .execute(async (trx) => {
        await insertOrderBatch(trx, orders);
        await insertCertificateBatch(trx, rows);
        // Like every certificate, each is in the transparency log (its entry waits for the sequencer).
        await logCertificatesIssued(trx, rows);
      })
      .then(
        () => null,
        (error: unknown) => error ?? new Error('batch insert failed'),
      );
  }
  await settle();
  return ids;
}
