/**
 * SQL of certificates: insert one (in the caller's transaction), read by id or by order, revoke (final),
 * and the order columns the certify path needs (the asset's SHA-256, the organization's name).
 */
import { sql } from 'kysely';
import { arrayLiteral } from '../../storage/array-literal.js';
import type { Executor } from '../../storage/database.js';

export interface CertificateRow {
  certificate_id: string;
  order_id: string;
  organization_id: string;
  kid: string;
  jws: string;
  asset_name: string;
  asset_sha256: string;
  asset_media_type: string;
  verify_url: string;
  issued_at: Date;
  issued_by: string;
  revoked_at: Date | null;
  revocation_reason: string | null;
  revoked_by: string | null;
  /** The credentialed copy (docs/content-credentials.md): its state, object key once ready, why unsupported. */
  content_credentials: ContentCredentialsState;
  content_credentials_key: string | null;
  content_credentials_note: string | null;
  /**
   * The certificate's published log entries as JSON text (`[{kind, index, entry, proof (hex), checkpoint}]`,
   * oldest first), or null while none is in a published checkpoint (domain/transparency-log).
   */
  transparency_log: string | null;
}

export type ContentCredentialsState = 'pending' | 'ready' | 'unsupported';

export type NewCertificateRow = Omit<
  CertificateRow,
  'revoked_at' | 'revocation_reason' | 'revoked_by' | 'transparency_log' | 'content_credentials' | 'content_credentials_key' | 'content_credentials_note'
>;

/**
 * The entries of the certificate that are in a checkpoint object storage has (`published_size`): one
 * index lookup per logged event (migrations/0018).
 */
const LOG_COLUMN = sql`(SELECT json_agg(json_build_object('kind', e.kind, 'index', e.log_index, 'entry', e.entry, 'proof', encode(e.inclusion_proof, 'hex'),
      'checkpoint', k.note) ORDER BY e.log_index)::text
    FROM transparency_log_entries e JOIN transparency_log_checkpoints k ON k.tree_size = e.checkpoint_size
    WHERE e.certificate_id = certificates.certificate_id AND e.checkpoint_size <= (SELECT published_size FROM transparency_log_state)) AS transparency_log`;

const COLUMNS = sql`certificate_id::text AS certificate_id, order_id, organization_id::text AS organization_id, kid, jws, asset_name,
  asset_sha256, asset_media_type, verify_url, issued_at, issued_by, revoked_at, revocation_reason, revoked_by,
  content_credentials, content_credentials_key, content_credentials_note, ${LOG_COLUMN}`;

export async function insertCertificate(trx: Executor, row: NewCertificateRow): Promise<void> {
  await trx.insertInto('certificates').values(row).execute();
}

/** One certificate by id (a well-formed UUID: the caller checks), or undefined. */
export async function findCertificate(db: Executor, certificateId: string): Promise<CertificateRow | undefined> {
  const result = await sql<CertificateRow>`SELECT ${COLUMNS} FROM certificates WHERE certificate_id = ${certificateId}::uuid`.execute(db);
  return result.rows[0];
}

/**
 * Several certificates by id (well-formed UUIDs: the caller checks) in one statement: the public lookups
 * of concurrent requests share one round trip. Unknown ids are simply missing from the result.
 */
export async function findCertificates(db: Executor, certificateIds: readonly string[]): Promise<CertificateRow[]> {
  const result = await sql<CertificateRow>`SELECT ${COLUMNS} FROM certificates WHERE certificate_id = ANY(${arrayLiteral(certificateIds)}::uuid[])`.execute(db);
  return result.rows;
}

/** The certificate of an order, or undefined while it has none. */
export async function findCertificateOfOrder(db: Executor, orderId: string): Promise<CertificateRow | undefined> {
  const result = await sql<CertificateRow>`SELECT ${COLUMNS} FROM certificates WHERE order_id = ${orderId}::text`.execute(db);
  return result.rows[0];
}

/** What handing out a certificate's credentialed file needs (no JWS, no log proof: the file route is a download). */
export type CertificateFileRow = Pick<
  CertificateRow,
  'certificate_id' | 'asset_name' | 'revoked_at' | 'content_credentials' | 'content_credentials_key' | 'content_credentials_note'
>;

/**
 * The credentialed-file columns of the certificate of an order the principal sees, in one read, or
 * undefined (no such order, not visible, or no certificate). The visibility is the orders' own rule
 * (find-visible-order.ts over visible-projects.repository.ts): a personal order is seen by an administrator
 * and its owner; a project's order by whoever sees the project (an administrator of the organization, or a
 * member). test/abuse/cross-tenant.test.ts probes this route with every other tenant's and user's ids.
 */
export async function findVisibleCertificateFile(
  db: Executor,
  viewer: { organizationId: string; userId: string; isAdmin: boolean; emailKey: string },
  orderId: string,
): Promise<CertificateFileRow | undefined> {
  if (orderId.includes('\u0000')) return undefined; // no stored id holds NUL (PostgreSQL text cannot)
  const result = await sql<CertificateFileRow>`
    SELECT c.certificate_id::text AS certificate_id, c.asset_name, c.revoked_at, c.content_credentials, c.content_credentials_key,
      c.content_credentials_note
    FROM certificates c JOIN orders o ON o.order_id = c.order_id
    WHERE c.order_id = ${orderId}::text AND o.organization_id = ${viewer.organizationId}::uuid
      AND CASE WHEN o.project_id IS NULL THEN ${viewer.isAdmin}::boolean OR o.owner_key = ${viewer.emailKey}::text
        ELSE EXISTS (
          SELECT 1 FROM projects p LEFT JOIN project_members m ON m.project_id = p.id AND m.user_id = ${viewer.userId}::uuid
          WHERE p.id = o.project_id AND p.organization_id = ${viewer.organizationId}::uuid AND (${viewer.isAdmin}::boolean OR m.user_id IS NOT NULL))
      END`.execute(db);
  return result.rows[0];
}

/** Reads a certificate and locks its row until the transaction ends (two revocations queue up). */
export async function lockCertificate(trx: Executor, certificateId: string): Promise<CertificateRow | undefined> {
  const result = await sql<CertificateRow>`SELECT ${COLUMNS} FROM certificates WHERE certificate_id = ${certificateId}::uuid FOR UPDATE`.execute(trx);
  return result.rows[0];
}

/**
 * Revokes a certificate that is not revoked yet.
 * @returns the revoked row, or undefined when it was already revoked (or does not exist): nothing written.
 */
export async function markRevoked(
  trx: Executor,
  certificateId: string,
  values: { revoked_at: Date; revocation_reason: string; revoked_by: string },
): Promise<CertificateRow | undefined> {
  const result = await sql<CertificateRow>`
    UPDATE certificates SET revoked_at = ${values.revoked_at}, revocation_reason = ${values.revocation_reason}, revoked_by = ${values.revoked_by}
    WHERE certificate_id = ${certificateId}::uuid AND revoked_at IS NULL
    RETURNING ${COLUMNS}`.execute(trx);
  return result.rows[0];
}

/** What the certify path reads of an order besides its locked row. */
export interface OrderCertificationFacts {
  asset_key: string | null;
  asset_sha256: string | null;
  organization_name: string;
}

export async function readOrderCertificationFacts(db: Executor, orderId: string): Promise<OrderCertificationFacts | undefined> {
  const result = await sql<OrderCertificationFacts>`
    SELECT o.asset_key, o.asset_sha256, g.name AS organization_name
    FROM orders o JOIN organizations g ON g.id = o.organization_id
    WHERE o.order_id = ${orderId}::text`.execute(db);
  return result.rows[0];
}

/** Records the asset's SHA-256 unless one is recorded already (the bytes of an asset never change). */
export async function recordAssetSha256(db: Executor, orderId: string, sha256: string): Promise<void> {
  await db.updateTable('orders').set({ asset_sha256: sha256 }).where('order_id', '=', orderId).where('asset_sha256', 'is', null).execute();
}

/** Many certificates in one statement (synthetic data for tests and benchmarks). */
export async function insertCertificateBatch(db: Executor, rows: NewCertificateRow[]): Promise<void> {
  if (rows.length === 0) return;
  await db.insertInto('certificates').values(rows).execute();
}
