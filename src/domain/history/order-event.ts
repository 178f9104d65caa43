/**
 * The events of an order's history (docs/history.md): what each records, who did it, and what it changed.
 * The writers are the lifecycle service (every move and every recorded edit, in the transaction of the
 * change: order-lifecycle.service.ts) and `recordOrderEvent` (order-history.service.ts) for actions that
 * change no order field (a claim, a certificate); the reader is GET /v1/orders/{order_id}/history.
 */
import { ORDER_EVENT_TYPES, type OrderEventTypeValue } from '../../contract/history-schemas.js';
import type { HumanOrderStateValue } from '../../contract/schemas.js';
import type { OrderInputT } from '../orders/order-input.schema.js';

export { ORDER_EVENT_TYPES };
export type OrderEventType = OrderEventTypeValue;

/** The types that move the order (from_state/to_state set); every other type leaves both null. */
export const MOVE_EVENT_TYPES: readonly OrderEventType[] = ['created', 'state_changed', 'responded'];

/** Who acts on an order: a user (signed in, or through an API client acting for them), or a part of certdesk. */
export type Actor =
  | { kind: 'user'; userId: string; email: string; clientId: string | null }
  | { kind: 'system'; component: string };

/** `{field: {before, after}}`: the values an event changed. */
export type FieldChanges = Record<string, { before: unknown; after: unknown }>;

/** One row of `order_events` as written. */
export interface OrderEventInput {
  order_id: string;
  organization_id: string;
  type: OrderEventType;
  from_state: HumanOrderStateValue | null;
  to_state: HumanOrderStateValue | null;
  actor_kind: 'user' | 'system';
  actor_id: string;
  /** As the history shows it (see actorColumns). */
  actor: string;
  actor_client_id: string | null;
  note: string | null;
  changes: FieldChanges | null;
  occurred_at: Date;
}

/** Prefix of a system actor as the history shows it: `certdesk:analysis`. */
export const SYSTEM_ACTOR_PREFIX = 'certdesk:';

/**
 * The actor columns of an event. A user appears as their e-mail (a reviewer too); the API client they acted
 * through is stored for operators but never shown (client ids are credentials' names, and a reviewer of
 * another organization must not learn them); a part of certdesk appears as `certdesk:<component>`.
 */
export function actorColumns(actor: Actor): Pick<OrderEventInput, 'actor_kind' | 'actor_id' | 'actor' | 'actor_client_id'> {
  return actor.kind === 'user'
    ? { actor_kind: 'user', actor_id: actor.userId, actor: actor.email, actor_client_id: actor.clientId }
    : { actor_kind: 'system', actor_id: actor.component, actor: `${SYSTEM_ACTOR_PREFIX}${actor.component}`, actor_client_id: null };
}

/**
 * The order fields an event's `changes` compares, with the interface's default for an absent value (so
 * an absent list and an empty one are the same). The state is not among them (from_state/to_state say it),
 * nor are ids, creation data or object keys, which never change once written.
 */
const TRACKED_FIELDS = {
  order_title: '',
  ordered_by: null,
  tags: [],
  analysis_list: [],
  analysis_failed_items: [],
  annotations: [],
  confidence: 0,
  remediation: 0,
  reviewed_by: null,
  review_timestamp: null,
} as const satisfies Partial<Record<keyof OrderInputT, unknown>>;

/** The tracked fields that differ between two versions of an order, or null when none does. */
export function fieldChanges(before: OrderInputT, after: OrderInputT): FieldChanges | null {
  const changes: FieldChanges = {};
  for (const [field, fallback] of Object.entries(TRACKED_FIELDS) as Array<[keyof typeof TRACKED_FIELDS, unknown]>) {
    const was = before[field] ?? fallback;
    const now = after[field] ?? fallback;
    if (JSON.stringify(was) !== JSON.stringify(now)) changes[field] = { before: was, after: now };
  }
  return Object.keys(changes).length > 0 ? changes : null;
}

/** `a` with the entries of `b` (b wins); null when both are empty. */
export function mergeChanges(a: FieldChanges | null, b: FieldChanges | null | undefined): FieldChanges | null {
  const merged = { ...(a ?? {}), ...(b ?? {}) };
  return Object.keys(merged).length > 0 ? merged : null;
}
