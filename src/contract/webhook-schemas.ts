/**
 * Webhook endpoints and deliveries (DECISIONS 10). Field names are exact; `disabled_reason` is how
 * administrators see why the service disabled an endpoint (410, three days of failures).
 */
import { Type, type Static, type TSchema } from '@sinclair/typebox';

const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);

export const WEBHOOK_EVENT_TYPES = ['order.created', 'order.state_changed', 'certificate.issued', 'certificate.revoked'] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];
/** The type of a test event ("Send test event" on the organization page): in the delivery log, never in `events`. */
export const WEBHOOK_TEST_EVENT_TYPE = 'webhook.test';

export const WebhookEventType = Type.Union(
  WEBHOOK_EVENT_TYPES.map((t) => Type.Literal(t)),
  { $id: 'WebhookEventType', title: 'WebhookEventType', description: 'An event a webhook endpoint can subscribe to.' },
);

const eventRef = Type.Unsafe<WebhookEventType>(Type.Ref('WebhookEventType'));
const inlineEventType = Type.Union(WEBHOOK_EVENT_TYPES.map((t) => Type.Literal(t)), { description: 'An event name; unknown names are 422.' });
const events = Type.Array(inlineEventType, { minItems: 1, maxItems: WEBHOOK_EVENT_TYPES.length, uniqueItems: true, description: 'The events sent to the endpoint.' });
const url = Type.String({ minLength: 1, maxLength: 2048, description: '`https` URL resolving to public addresses only (see docs/webhooks.md, SSRF rules).' });
const description = Type.String({ maxLength: 500, description: 'Free text for administrators.' });
const status = Type.Union([Type.Literal('enabled'), Type.Literal('disabled')], { description: '`disabled`: no event is sent (by a user, or by the service after a 410 or 3 days of failures).' });

export const WebhookEndpoint = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    url: Type.String(),
    events: Type.Array(eventRef),
    description: Nullable(Type.String()),
    status,
    disabled_reason: Nullable(Type.String({ description: 'Why the service disabled the endpoint; null otherwise.' })),
    created_at: Type.String({ format: 'date-time' }),
  },
  { $id: 'WebhookEndpoint', title: 'WebhookEndpoint', additionalProperties: false, description: 'A webhook endpoint of the organization.' },
);

export const WebhookEndpointWithSecret = Type.Object(
  {
    ...WebhookEndpoint.properties,
    secret: Type.String({ description: 'The signing secret (`whsec_` + base64 of 32 random bytes), shown only here and on rotation.' }),
  },
  { $id: 'WebhookEndpointWithSecret', title: 'WebhookEndpointWithSecret', additionalProperties: false, description: 'A new endpoint with its signing secret.' },
);

export const WebhookEndpointList = Type.Object(
  { webhook_endpoints: Type.Array(Type.Unsafe<Static<typeof WebhookEndpoint>>(Type.Ref('WebhookEndpoint'))) },
  { $id: 'WebhookEndpointList', title: 'WebhookEndpointList', additionalProperties: false },
);

export const WebhookSecret = Type.Object(
  { secret: Type.String({ description: 'The new signing secret; the old one keeps signing beside it for 24 hours.' }) },
  { $id: 'WebhookSecret', title: 'WebhookSecret', additionalProperties: false },
);

export const WebhookDelivery = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    event_id: Type.String({ format: 'uuid', description: 'The `webhook-id` header: the same for every endpoint and every retry.' }),
    event_type: Type.Union([eventRef, Type.Literal(WEBHOOK_TEST_EVENT_TYPE)], {
      description: 'The event\'s type; `webhook.test` for a test event sent from the organization page (never subscribed to).',
    }),
    status: Type.Union([Type.Literal('pending'), Type.Literal('succeeded'), Type.Literal('failed')]),
    attempts: Type.Integer({ minimum: 0 }),
    last_attempt_at: Nullable(Type.String({ format: 'date-time' })),
    next_attempt_at: Nullable(Type.String({ format: 'date-time' })),
    response_status: Nullable(Type.Integer({ description: 'HTTP status of the last answer; null when none came.' })),
    latency_ms: Nullable(Type.Integer({ minimum: 0 })),
  },
  { $id: 'WebhookDelivery', title: 'WebhookDelivery', additionalProperties: false, description: 'One event sent (or to send) to one endpoint.' },
);

export const WebhookDeliveryPage = Type.Object(
  {
    deliveries: Type.Array(Type.Unsafe<Static<typeof WebhookDelivery>>(Type.Ref('WebhookDelivery'))),
    next_page_token: Nullable(Type.String()),
  },
  { $id: 'WebhookDeliveryPage', title: 'WebhookDeliveryPage', additionalProperties: false, description: 'Deliveries, newest first.' },
);

export const CreateWebhookEndpointRequest = Type.Object(
  { url, events, description: Type.Optional(description) },
  { title: 'CreateWebhookEndpointRequest', additionalProperties: false },
);

export const UpdateWebhookEndpointRequest = Type.Object(
  {
    url: Type.Optional(url),
    events: Type.Optional(events),
    // null first: bodies are validated with scalar coercion, which would turn a null into '' against a
    // string branch tried first; `null` (and '') clear the description.
    description: Type.Optional(Type.Union([Type.Null(), description])),
    status: Type.Optional(status),
  },
  { title: 'UpdateWebhookEndpointRequest', additionalProperties: false },
);

export const WebhookEndpointPathParams = Type.Object({
  endpoint_id: Type.String({ description: 'The endpoint id (a UUID). Unknown ids, and endpoints of other organizations, are 404.' }),
});

export const WebhookDeliveryPathParams = Type.Object({
  endpoint_id: WebhookEndpointPathParams.properties.endpoint_id,
  delivery_id: Type.String({ description: 'The delivery id (a UUID).' }),
});

export const WEBHOOK_DELIVERIES_MAX_LIMIT = 100;
export const WebhookDeliveriesQuery = Type.Object({
  page_token: Type.Optional(Type.String({ description: 'next_page_token of the previous response.' })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: WEBHOOK_DELIVERIES_MAX_LIMIT, default: 50, description: 'Maximum deliveries per page.' })),
});

export type WebhookEndpointT = Static<typeof WebhookEndpoint>;
export type WebhookDeliveryT = Static<typeof WebhookDelivery>;
export type CreateWebhookEndpointRequestT = Static<typeof CreateWebhookEndpointRequest>;
export type UpdateWebhookEndpointRequestT = Static<typeof UpdateWebhookEndpointRequest>;

export const webhookComponentSchemas: TSchema[] = [
  WebhookEventType,
  WebhookEndpoint,
  WebhookEndpointWithSecret,
  WebhookEndpointList,
  WebhookSecret,
  WebhookDelivery,
  WebhookDeliveryPage,
];
