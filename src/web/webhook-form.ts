/**
 * The webhook endpoint form (add and edit) read into the API's own request bodies and checked against the
 * contract's schemas (src/contract/webhook-schemas.ts), so the page accepts exactly what the API accepts;
 * each schema error becomes a message on its field. The URL's address rules are the domain service's
 * (a refused URL comes back from it as WebhookUrlRefusedError).
 */
import { Value } from '@sinclair/typebox/value';
import {
  CreateWebhookEndpointRequest,
  UpdateWebhookEndpointRequest,
  type CreateWebhookEndpointRequestT,
  type UpdateWebhookEndpointRequestT,
} from '../contract/webhook-schemas.js';
import type { MessageKey } from '../i18n/index.js';

export type WebhookField = 'url' | 'events' | 'description';

export interface WebhookFormInput {
  url: string;
  description: string;
  events: string[];
}

export type WebhookFormCheck<T> =
  | { ok: true; input: WebhookFormInput; body: T }
  | { ok: false; input: WebhookFormInput; errors: Array<{ field: WebhookField; key: MessageKey & `web.${string}` }> };

const FIELD_MESSAGES: Record<WebhookField, MessageKey & `web.${string}`> = {
  url: 'web.wh.error_url',
  events: 'web.wh.error_events',
  description: 'web.wh.error_description',
};

const text = (value: unknown): string => (typeof value === 'string' ? value : Array.isArray(value) && typeof value[0] === 'string' ? value[0] : '');

/** The posted fields as the form shows them again (events: every checked box, repeated names included). */
export function readWebhookForm(body: Record<string, unknown>): WebhookFormInput {
  const events = body.events;
  return {
    url: text(body.url).trim(),
    description: text(body.description).trim(),
    events: (Array.isArray(events) ? events : events === undefined ? [] : [events]).filter((e): e is string => typeof e === 'string'),
  };
}

function errorsOf(schema: typeof CreateWebhookEndpointRequest | typeof UpdateWebhookEndpointRequest, body: unknown, input: WebhookFormInput) {
  const fields = new Set<WebhookField>();
  for (const error of Value.Errors(schema, body)) {
    const field = error.path.split('/')[1];
    if (field === 'url' || field === 'events' || field === 'description') fields.add(field);
  }
  // The URL is required by both forms (on edit too: the form always sends it).
  if (!input.url) fields.add('url');
  return (['url', 'description', 'events'] as const).filter((f) => fields.has(f)).map((field) => ({ field, key: FIELD_MESSAGES[field] }));
}

export function checkCreateWebhookForm(raw: Record<string, unknown>): WebhookFormCheck<CreateWebhookEndpointRequestT> {
  const input = readWebhookForm(raw);
  const body: CreateWebhookEndpointRequestT = { url: input.url, events: input.events as CreateWebhookEndpointRequestT['events'], ...(input.description ? { description: input.description } : {}) };
  const errors = errorsOf(CreateWebhookEndpointRequest, body, input);
  return errors.length ? { ok: false, input, errors } : { ok: true, input, body };
}

/** The edit form sends every field: an empty description clears it. */
export function checkUpdateWebhookForm(raw: Record<string, unknown>): WebhookFormCheck<UpdateWebhookEndpointRequestT> {
  const input = readWebhookForm(raw);
  const body: UpdateWebhookEndpointRequestT = { url: input.url, events: input.events as UpdateWebhookEndpointRequestT['events'], description: input.description || null };
  const errors = errorsOf(UpdateWebhookEndpointRequest, body, input);
  return errors.length ? { ok: false, input, errors } : { ok: true, input, body };
}
