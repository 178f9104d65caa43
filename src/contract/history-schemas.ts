/**
 * GET /v1/orders/{order_id}/history: the order's events, oldest first (docs/history.md). Registered as
 * named components beside the interface's own (src/http/openapi/components.ts).
 */
import { Type, type Static } from '@sinclair/typebox';
import { HumanOrderState } from './schemas.js';

/** Every event type, as the API names them. */
export const ORDER_EVENT_TYPES = [
  'created',
  'state_changed',
  'analysis_completed',
  'annotation_changed',
  'claimed',
  'responded',
  'certificate_issued',
  'certificate_revoked',
] as const;
export type OrderEventTypeValue = (typeof ORDER_EVENT_TYPES)[number];

const Nullable = <T extends ReturnType<typeof Type.String> | typeof HumanOrderState>(schema: T) => Type.Union([schema, Type.Null()]);

/** A plain string enum, like HumanOrderState. */
export const OrderEventType = Type.Unsafe<OrderEventTypeValue>({
  type: 'string',
  enum: [...ORDER_EVENT_TYPES],
  $id: 'OrderEventType',
  title: 'OrderEventType',
  description: 'What happened: a move (`created`, `state_changed`, `responded`) or an action that leaves the state as it is.',
});

export const FieldChange = Type.Object(
  {
    before: Type.Unknown({ description: 'The value before the event (null or the interface default when it had none).' }),
    after: Type.Unknown({ description: 'The value after the event.' }),
  },
  { $id: 'FieldChange', title: 'FieldChange', additionalProperties: false },
);

export const OrderHistoryEvent = Type.Object(
  {
    event_id: Type.String({ format: 'uuid', description: 'Stable id of the event.' }),
    type: OrderEventType,
    at: Type.String({ format: 'date-time', description: 'When it was recorded: RFC 3339 UTC, at most microseconds.' }),
    actor: Type.String({ description: "Who: a user's (or reviewer's) e-mail, or `certdesk:<component>` for certdesk itself (e.g. `certdesk:analysis`)." }),
    from_state: Nullable(HumanOrderState),
    to_state: Nullable(HumanOrderState),
    note: Nullable(Type.String({ description: "The reason of a system move, the customer's message of a response, a reviewer's note." })),
    changes: Type.Union([Type.Record(Type.String(), FieldChange), Type.Null()], {
      description: 'The order fields the event changed, `{field: {before, after}}`; null when it changed none.',
    }),
  },
  { $id: 'OrderHistoryEvent', title: 'OrderHistoryEvent', additionalProperties: false },
);

export const OrderHistory = Type.Object(
  { events: Type.Array(OrderHistoryEvent, { description: 'Oldest first, in the order they were recorded.' }) },
  { $id: 'OrderHistory', title: 'OrderHistory', additionalProperties: false },
);

/** Components in dependency order (after the interface's own: HumanOrderState). */
export const historyComponentSchemas = [OrderEventType, FieldChange, OrderHistoryEvent, OrderHistory];

export type OrderHistoryEventT = Static<typeof OrderHistoryEvent>;
export type OrderHistoryT = Static<typeof OrderHistory>;
