/**
 * SQL of `order_analysis_failures` (migrations/0003): why an order's analysis moved it to `Failed`, written
 * in the transaction of that move, so an operator can tell a transient cause (re-analysable) from a
 * permanent one (bad bytes) for as long as the order exists.
 */
import { sql } from 'kysely';
import type { Executor } from '../../storage/database.js';
import type { JobFailureKind } from '../background/job-handler.js';

export interface AnalysisFailure {
  order_id: string;
  failure_kind: JobFailureKind;
  job_id: number | null;
  /** The check that kept failing. */
  failed_check: string;
  error: string;
  failed_at: Date;
}

export async function recordAnalysisFailure(trx: Executor, failure: Omit<AnalysisFailure, 'failed_at'>): Promise<void> {
  await sql`
    INSERT INTO order_analysis_failures (order_id, failure_kind, job_id, failed_check, error, failed_at)
    VALUES (${failure.order_id}, ${failure.failure_kind}, ${failure.job_id}, ${failure.failed_check}, ${failure.error}, now())
    ON CONFLICT (order_id) DO UPDATE SET failure_kind = EXCLUDED.failure_kind, job_id = EXCLUDED.job_id,
      failed_check = EXCLUDED.failed_check, error = EXCLUDED.error, failed_at = now()`.execute(trx);
}

export async function findAnalysisFailure(db: Executor, orderId: string): Promise<AnalysisFailure | undefined> {
  return db.selectFrom('order_analysis_failures').selectAll().where('order_id', '=', orderId).executeTakeFirst();
}

export async function deleteAnalysisFailure(trx: Executor, orderId: string): Promise<void> {
  await trx.deleteFrom('order_analysis_failures').where('order_id', '=', orderId).execute();
}
