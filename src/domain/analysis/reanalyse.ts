/**
 * An operator's re-analysis of an order whose analysis failed for a TRANSIENT cause (the detection service
 * or storage was down for longer than the retries last): in one transaction the order moves
 * Failed → In Progress (an operator-only move, lifecycle.ts), the failing check's entry is removed so the
 * analysis runs it again (the checks that passed keep their entries), the recorded cause is cleared and a
 * new analysis job is queued. A permanent cause (bad bytes) or any other state is refused: re-analysing
 * could not change it.
 */
import type { Db } from '../../storage/database.js';
import { ANALYZE_ORDER_JOB, analysisJobKey, maxAttemptsOf } from '../background/job-kinds.js';
import { insertJob } from '../background/jobs.repository.js';
import { changeOrderIn, OrderNotFoundError, type Actor } from '../orders/order-lifecycle.service.js';
import { readOrder } from '../orders/order-lifecycle.repository.js';
import type { Clock } from '../time/clock.js';
import { deleteAnalysisFailure, findAnalysisFailure } from './analysis-failure.repository.js';

/** Why an order cannot be re-analysed (the command prints the message and exits non-zero). */
export class ReanalyseRefusedError extends Error {
  override name = 'ReanalyseRefusedError';
}

export const OPERATOR_ACTOR: Actor = { kind: 'system', component: 'operator' };

export interface Reanalysis {
  order_id: string;
  job_id: number;
  /** The check that had failed and runs again. */
  check: string;
  /** The transient error it had failed with. */
  previous_error: string;
}

/** @throws ReanalyseRefusedError */
export async function reanalyseOrder(deps: { db: Db; clock: Clock }, orderId: string, actor: Actor = OPERATOR_ACTOR): Promise<Reanalysis> {
  return deps.db.transaction().execute(async (trx) => {
    const order = await readOrder(trx, orderId);
    if (!order) throw new ReanalyseRefusedError(`order ${orderId} does not exist`);
    if (order.order_state !== 'Failed') throw new ReanalyseRefusedError(`order ${orderId} is ${order.order_state}, not Failed: only an order whose analysis failed for a transient cause can be re-analysed`);
    const failure = await findAnalysisFailure(trx, orderId);
    if (!failure) throw new ReanalyseRefusedError(`order ${orderId} did not fail in its analysis (no recorded cause): it cannot be re-analysed`);
    if (failure.failure_kind !== 'transient') {
      throw new ReanalyseRefusedError(`order ${orderId} failed for a permanent cause (${failure.failed_check}: ${failure.error}): re-analysing cannot change it`);
    }
    try {
      await changeOrderIn(trx, deps.clock, orderId, actor, {
        to: 'In Progress',
        onlyFrom: ['Failed'],
        operator: true,
        reason: `re-analysis after a transient failure of ${failure.failed_check}: ${failure.error}`,
        edit: (input) => {
          input.analysis_list = (input.analysis_list ?? []).filter((l) => l.analysis_type !== failure.failed_check);
        },
      });
    } catch (err) {
      if (err instanceof OrderNotFoundError) throw new ReanalyseRefusedError(`order ${orderId} does not exist`);
      throw err;
    }
    await deleteAnalysisFailure(trx, orderId);
    const jobId = await insertJob(trx, { kind: ANALYZE_ORDER_JOB, payload: { order_id: orderId }, maxAttempts: maxAttemptsOf(ANALYZE_ORDER_JOB), singletonKey: analysisJobKey(orderId) });
    if (jobId === null) throw new ReanalyseRefusedError(`order ${orderId} already has an analysis queued or running`);
    return { order_id: orderId, job_id: jobId, check: failure.failed_check, previous_error: failure.error };
  });
}
