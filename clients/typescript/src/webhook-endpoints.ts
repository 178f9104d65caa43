/**
 * `client.webhookEndpoints`: the organization's webhook endpoints (DECISIONS 10), for clients of an
 * organization administrator (read scope to list and read, write scope to change; anyone else gets
 * `PermissionDeniedError`). The signing secret is returned only by `create` and `rotateSecret`: keep it,
 * `verifyWebhook` needs it.
 */
import type { Transport } from './transport.js';
import type { WebhookDelivery, WebhookDeliveryPage, WebhookEndpoint, WebhookEndpointWithSecret, WebhookEventType } from './types.js';

export interface CreateWebhookEndpointParams {
  /** `https` URL resolving to public addresses (`UnprocessableEntityError` naming `body.url` otherwise). */
  url: string;
  /** At least one of `order.created`, `order.state_changed`, `certificate.issued`, `certificate.revoked`. */
  events: WebhookEventType[];
  description?: string;
  signal?: AbortSignal;
}

export interface UpdateWebhookEndpointParams {
  url?: string;
  events?: WebhookEventType[];
  /** null clears it. */
  description?: string | null;
  /** Setting it (either way) clears the reason the service disabled the endpoint for. */
  status?: 'enabled' | 'disabled';
  signal?: AbortSignal;
}

export interface ListDeliveriesParams {
  /** Deliveries per page, 1..100 (server default 50). */
  limit?: number;
  /** Start from this `next_page_token` (resume a walk). */
  pageToken?: string | null;
  signal?: AbortSignal;
}

/** Every delivery of an endpoint, newest first, one page fetched at a time; `.pages()` yields whole pages. */
export class DeliveryList implements AsyncIterable<WebhookDelivery> {
  constructor(private readonly fetchPage: (pageToken: string | null) => Promise<WebhookDeliveryPage>, private readonly startToken: string | null) {}

  async *pages(): AsyncGenerator<WebhookDeliveryPage, void, undefined> {
    let token = this.startToken;
    do {
      const page = await this.fetchPage(token);
      yield page;
      token = page.next_page_token;
    } while (token !== null);
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<WebhookDelivery, void, undefined> {
    for await (const page of this.pages()) yield* page.deliveries;
  }

  async toArray(): Promise<WebhookDelivery[]> {
    const all: WebhookDelivery[] = [];
    for await (const delivery of this) all.push(delivery);
    return all;
  }
}

const signalOf = (signal: AbortSignal | undefined) => (signal ? { signal } : {});
const endpointPath = (id: string) => `/v1/webhook-endpoints/${encodeURIComponent(id)}`;

export class WebhookEndpointsResource {
  constructor(private readonly transport: Transport) {}

  /** The organization's endpoints, oldest first (without their secrets). */
  async list(options: { signal?: AbortSignal } = {}): Promise<WebhookEndpoint[]> {
    return (await this.transport.request<{ webhook_endpoints: WebhookEndpoint[] }>({ method: 'GET', path: '/v1/webhook-endpoints', ...signalOf(options.signal) })).body.webhook_endpoints;
  }

  async get(endpointId: string, options: { signal?: AbortSignal } = {}): Promise<WebhookEndpoint> {
    return (await this.transport.request<WebhookEndpoint>({ method: 'GET', path: endpointPath(endpointId), ...signalOf(options.signal) })).body;
  }

  /**
   * Adds an endpoint; the answer carries its `secret`, shown only here. Not repeated after a lost
   * connection (the route takes no Idempotency-Key, so a repeat could add a second endpoint): a
   * `CertdeskConnectionError` here means "look at `list()` before trying again".
   */
  async create(params: CreateWebhookEndpointParams): Promise<WebhookEndpointWithSecret> {
    const json = { url: params.url, events: params.events, ...(params.description !== undefined ? { description: params.description } : {}) };
    return (await this.transport.request<WebhookEndpointWithSecret>({ method: 'POST', path: '/v1/webhook-endpoints', json, ...signalOf(params.signal) })).body;
  }

  /** Changes the given fields (`PATCH`). */
  async update(endpointId: string, params: UpdateWebhookEndpointParams): Promise<WebhookEndpoint> {
    const { signal, ...fields } = params;
    const json = Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined));
    return (await this.transport.request<WebhookEndpoint>({ method: 'PATCH', path: endpointPath(endpointId), json, ...signalOf(signal) })).body;
  }

  /** Deletes the endpoint and its delivery log (its pending deliveries are not sent). */
  async delete(endpointId: string, options: { signal?: AbortSignal } = {}): Promise<void> {
    await this.transport.request<null>({ method: 'DELETE', path: endpointPath(endpointId), ...signalOf(options.signal) });
  }

  /** A new signing secret (shown only here); for 24 hours deliveries are signed with the old one too. */
  async rotateSecret(endpointId: string, options: { signal?: AbortSignal } = {}): Promise<{ secret: string }> {
    return (await this.transport.request<{ secret: string }>({ method: 'POST', path: `${endpointPath(endpointId)}/rotate-secret`, ...signalOf(options.signal) })).body;
  }

  /** The endpoint's delivery log, newest first, across pages: `for await (const d of ...)`, or `.pages()`. */
  deliveries(endpointId: string, params: ListDeliveriesParams = {}): DeliveryList {
    return new DeliveryList(
      async (pageToken) =>
        (
          await this.transport.request<WebhookDeliveryPage>({
            method: 'GET',
            path: `${endpointPath(endpointId)}/deliveries`,
            query: { limit: params.limit, page_token: pageToken },
            ...signalOf(params.signal),
          })
        ).body,
      params.pageToken ?? null,
    );
  }

  /** Sends a delivery again (same `webhook-id`), whatever its status; queued, sent in the background (202). */
  async retryDelivery(endpointId: string, deliveryId: string, options: { signal?: AbortSignal } = {}): Promise<void> {
    await this.transport.request<null>({ method: 'POST', path: `${endpointPath(endpointId)}/deliveries/${encodeURIComponent(deliveryId)}/retry`, ...signalOf(options.signal) });
  }
}
