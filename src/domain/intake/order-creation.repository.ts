/**
 * The write of a new order, as one statement (data-modifying CTEs, atomic on their own): the upload is
 * claimed (only if unused and unexpired), and only then are the analysis job queued, the order inserted
 * and its creation recorded. One round trip instead of six (BEGIN, claim, job, order, event, COMMIT):
 * creation is the intake's hot path, and the order insert holds its scope's counter row (the counter
 * trigger) only for this one statement.
 *
 * The job row is written by the one job INSERT (`jobInsertSql`, domain/background/jobs.repository.ts); the order
 * and its event by the one order insert (`newOrderStatementSql`, order-lifecycle.repository.ts).
 */
import { sql } from 'kysely';
import type { Executor } from '../../storage/database.js';
import { jobInsertSql, type NewJob } from '../background/jobs.repository.js';
import type { OrderRow } from '../orders/order-document.js';
import { newOrderStatementSql, type OrderAsset, type OrderEventInput } from '../orders/order-lifecycle.repository.js';

export interface NewOrderWrite {
  uploadId: string;
  now: Date;
  row: OrderRow;
  asset: OrderAsset;
  event: OrderEventInput;
  job: NewJob;
}

/** @returns false when the upload could not be claimed (used meanwhile, or expired): nothing was written. */
export async function insertOrderClaimingUpload(db: Executor, w: NewOrderWrite): Promise<boolean> {
  const { row, asset, event, job } = w;
  const result = await sql<{ order_id: string }>`
    WITH claimed AS (
      UPDATE uploads SET used_at = ${w.now}::timestamptz, used_by_order = ${row.order_id}::text
      WHERE upload_id = ${w.uploadId}::uuid AND used_at IS NULL AND expires_at > ${w.now}::timestamptz
      RETURNING upload_id
    ), queued AS (${jobInsertSql(job, sql`FROM claimed`)}
    ), ${newOrderStatementSql(row, asset, event, 'claimed')}`.execute(db);
  return result.rows.length === 1;
}
