/**
 * Records a reviewer's claim in the order's history (`claimed`, docs/history.md), in the caller's
 * transaction. Edits are recorded by the lifecycle service itself (`annotation_changed`, with each
 * changed field's before and after) and decisions as the move's `state_changed` event with the note.
 */
import type { Executor } from '../../storage/database.js';
import { recordOrderEvent } from '../history/order-history.service.js';
import type { Clock } from '../time/clock.js';

export async function recordClaim(trx: Executor, clock: Clock, orderId: string, reviewer: { userId: string; email: string }): Promise<void> {
  await recordOrderEvent(trx, clock, orderId, { kind: 'user', userId: reviewer.userId, email: reviewer.email, clientId: null }, { type: 'claimed' });
}
