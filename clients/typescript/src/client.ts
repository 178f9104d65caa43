/**
 * `new Certdesk({ baseUrl, clientId, clientSecret })`: the typed client of the certdesk API.
 *
 * @example
 * const client = new Certdesk({ baseUrl: 'https://api.certdesk.example', clientId, clientSecret });
 * for await (const order of client.orders.list({ projectId: 'All Projects' })) console.log(order.order_id);
 */
import { CertdeskError } from './errors.js';
import { LogResource } from './log-resource.js';
import { OrderList, type ListOrdersParams } from './orders-list.js';
import { DEFAULT_RETRY, type RetryPolicy } from './retry.js';
import { TokenCache } from './token.js';
import { defaultSleep, Transport, type TransportOptions } from './transport.js';
import { WebhookEndpointsResource } from './webhook-endpoints.js';
import type { Certificate, Order, OrderHistory, OrderPreview, OrdersPage, OrganizationMembers, Project, PublicCertificate, UploadTicket } from './types.js';

export interface CertdeskOptions {
  /** The API's base URL, e.g. `https://api.certdesk.example`. */
  baseUrl: string;
  clientId: string;
  clientSecret: string;
  /** Space-separated scopes to ask for; default: every scope of the client. */
  scope?: string;
  /** Timeout of each attempt of each request, in milliseconds (default 30,000). */
  timeoutMs?: number;
  /** Retries of 429, 503 and lost connections (default `{ maxRetries: 4, baseDelayMs: 250, maxDelayMs: 30000 }`). */
  retry?: Partial<RetryPolicy>;
  /** Files up to this size are sent in one multipart request; larger ones through a presigned upload (default 25 MiB). */
  multipartMaxBytes?: number;
  /** Refresh the token this long before it expires, in milliseconds (default 60,000). */
  tokenRefreshMarginMs?: number;
  /** Language of error messages (`lang` header: en, fr, de, es, ja). */
  lang?: string;
  /** Another fetch (default: the global one). */
  fetch?: typeof fetch;
  /** Called before each retry. */
  onRetry?: TransportOptions['onRetry'];
  /** For tests: the clock (ms since the epoch), the sleep between retries, the jitter's randomness. */
  now?: () => number;
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  random?: () => number;
}

export interface CreateOrderParams {
  /** The asset: a Blob or File (browser, or `fs.openAsBlob` on Node), or bytes. */
  file: Blob | ArrayBuffer | Uint8Array;
  /** Project of the order; null or absent: a personal order. */
  projectId?: string | null;
  orderTitle: string;
  /** File name sent with the bytes (default: the File's name, else `asset`). */
  fileName?: string;
  /** Media type of the bytes (default: the Blob's type, else `application/octet-stream`). */
  contentType?: string;
  assetName?: string;
  /** Unix seconds as a string. */
  assetLastModifiedTimestamp?: string;
  orderedBy?: string | null;
  tags?: string[];
  /** The `Idempotency-Key` of the create (default: a random UUID), kept across every retry. */
  idempotencyKey?: string;
  signal?: AbortSignal;
}

const MIB = 1024 * 1024;

function toBlob(file: Blob | ArrayBuffer | Uint8Array, type: string | undefined): Blob {
  if (file instanceof Blob) return file;
  return new Blob([file as BlobPart], type ? { type } : {});
}

export class Certdesk {
  readonly orders: OrdersResource;
  readonly projects: ProjectsResource;
  readonly organizations: OrganizationsResource;
  readonly certificates: CertificatesResource;
  readonly webhookEndpoints: WebhookEndpointsResource;
  /** The public transparency log (no credentials used). */
  readonly log: LogResource;
  /** @internal */
  readonly transport: Transport;
  private readonly tokenCache: TokenCache;

  constructor(readonly options: CertdeskOptions) {
    for (const key of ['baseUrl', 'clientId', 'clientSecret'] as const) {
      if (!options[key]) throw new TypeError(`Certdesk: ${key} is required`);
    }
    const fetchImpl = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
    const now = options.now ?? Date.now;
    const common = {
      baseUrl: options.baseUrl,
      fetch: fetchImpl,
      timeoutMs: options.timeoutMs ?? 30_000,
      retry: { ...DEFAULT_RETRY, ...options.retry },
      sleep: options.sleep ?? defaultSleep,
      now,
      random: options.random ?? Math.random,
      headers: (options.lang ? { lang: options.lang } : {}) as Record<string, string>,
      ...(options.onRetry ? { onRetry: options.onRetry } : {}),
    };
    const tokenTransport = new Transport({ ...common, tokens: null });
    this.tokenCache = new TokenCache(
      async () => {
        const form = new URLSearchParams({ grant_type: 'client_credentials', client_id: options.clientId, client_secret: options.clientSecret });
        if (options.scope) form.set('scope', options.scope);
        const res = await tokenTransport.request<{ access_token: string; expires_in: number }>({
          method: 'POST',
          path: '/oauth2/token',
          auth: false,
          body: form.toString(),
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
        });
        return { accessToken: res.body.access_token, expiresInSeconds: res.body.expires_in };
      },
      now,
      options.tokenRefreshMarginMs ?? 60_000,
    );
    this.transport = new Transport({ ...common, tokens: this.tokenCache });
    this.orders = new OrdersResource(this.transport, options.multipartMaxBytes ?? 25 * MIB);
    this.projects = new ProjectsResource(this.transport);
    this.organizations = new OrganizationsResource(this.transport);
    this.certificates = new CertificatesResource(this.transport);
    this.webhookEndpoints = new WebhookEndpointsResource(this.transport);
    this.log = new LogResource(options.baseUrl, fetchImpl);
  }

  /** The current access token (fetched or refreshed when needed). */
  accessToken(): Promise<string> {
    return this.tokenCache.get();
  }
}

class OrdersResource {
  constructor(private readonly transport: Transport, private readonly multipartMaxBytes: number) {}

  /** Every order of the scope, across pages: `for await (const o of client.orders.list(...))`, or `.pages()`. */
  list(params: ListOrdersParams & { preview: true }): OrderList<OrderPreview>;
  list(params: ListOrdersParams & { preview?: false }): OrderList<Order>;
  list(params: ListOrdersParams): OrderList<Order | OrderPreview>;
  list(params: ListOrdersParams): OrderList<Order | OrderPreview> {
    if (!params?.projectId) throw new TypeError('orders.list: projectId is required (`All Projects`, `Personal Certificates` or a project id)');
    const preview = params.preview ?? false;
    return new OrderList(
      (async (pageToken: string | null, ahead: AbortSignal | undefined, raw: boolean) => {
        const signal = params.signal && ahead ? AbortSignal.any([params.signal, ahead]) : (params.signal ?? ahead);
        return (
          await this.transport.request<OrdersPage | string>({
            method: 'GET',
            path: '/v1/orders',
            query: { project_id: params.projectId, preview: params.preview, limit: params.limit, page_token: pageToken },
            raw,
            ...(signal ? { signal } : {}),
          })
        ).body;
      }) as ConstructorParameters<typeof OrderList>[0],
      preview,
      params.pageToken ?? null,
      params.prefetch ?? false,
    );
  }

  async get(orderId: string, options: { signal?: AbortSignal } = {}): Promise<Order> {
    return (await this.transport.request<Order>({ method: 'GET', path: `/v1/orders/${encodeURIComponent(orderId)}`, ...options })).body;
  }

  async history(orderId: string, options: { signal?: AbortSignal } = {}): Promise<OrderHistory> {
    return (await this.transport.request<OrderHistory>({ method: 'GET', path: `/v1/orders/${encodeURIComponent(orderId)}/history`, ...options })).body;
  }

  /** The order's certificate (with the signed `jws`); `NotFoundError` while it has none. */
  async certificate(orderId: string, options: { signal?: AbortSignal } = {}): Promise<Certificate> {
    return (await this.transport.request<Certificate>({ method: 'GET', path: `/v1/orders/${encodeURIComponent(orderId)}/certificate`, ...options })).body;
  }

  /**
   * The certificate's credentialed file (`GET /v1/orders/{id}/certificate/file`): the asset as uploaded
   * with the certificate embedded as Content Credentials (C2PA), as a Blob of the asset's media type.
   * `NotFoundError` while the order has no certificate; `ConflictError` while the file is being made
   * (its `retryAfterMs` says when to ask again) or when the format cannot carry Content Credentials
   * (`retryAfterMs` null); `GoneError` once the certificate is revoked.
   */
  async certificateFile(orderId: string, options: { signal?: AbortSignal } = {}): Promise<Blob> {
    return (await this.transport.request<Blob>({ method: 'GET', path: `/v1/orders/${encodeURIComponent(orderId)}/certificate/file`, binary: true, ...options })).body;
  }

  /**
   * Uploads the file and creates the order: one multipart request up to `multipartMaxBytes`, otherwise a
   * presigned upload (`POST /v1/uploads`, `PUT` of the bytes) then `POST /v1/orders`. The create carries
   * one `Idempotency-Key` across all its retries, so a retry after a lost answer never creates twice.
   */
  async create(params: CreateOrderParams): Promise<Order> {
    const blob = toBlob(params.file, params.contentType);
    const fileName = params.fileName ?? (typeof File !== 'undefined' && blob instanceof File && blob.name ? blob.name : 'asset');
    const contentType = params.contentType ?? (blob.type || 'application/octet-stream');
    const key = params.idempotencyKey ?? globalThis.crypto.randomUUID();
    const signal = params.signal ? { signal: params.signal } : {};
    const fields: Record<string, unknown> = {
      project_id: params.projectId ?? null,
      order_title: params.orderTitle,
      ...(params.assetName !== undefined ? { asset_name: params.assetName } : {}),
      ...(params.assetLastModifiedTimestamp !== undefined ? { asset_last_modified_timestamp: params.assetLastModifiedTimestamp } : {}),
      ...(params.orderedBy !== undefined ? { ordered_by: params.orderedBy } : {}),
      ...(params.tags !== undefined ? { tags: params.tags } : {}),
    };
    if (blob.size <= this.multipartMaxBytes) {
      const form = new FormData();
      for (const [name, value] of Object.entries(fields)) {
        if (Array.isArray(value)) for (const v of value) form.append(name, String(v));
        else form.append(name, value === null ? '' : String(value));
      }
      form.append('file', blob.type === contentType ? blob : new Blob([blob], { type: contentType }), fileName);
      return (await this.transport.request<Order>({ method: 'POST', path: '/v1/orders', body: form, idempotencyKey: key, retryConflict: true, ...signal })).body;
    }
    const ticket = (
      await this.transport.request<UploadTicket>({
        method: 'POST',
        path: '/v1/uploads',
        json: { file_name: fileName, content_type: contentType, size: blob.size },
        idempotencyKey: `${key}:upload`,
        retryConflict: true,
        ...signal,
      })
    ).body;
    await this.transport.request<unknown>({ method: ticket.upload_method, path: ticket.upload_url, body: blob, headers: ticket.upload_headers, auth: false, ...signal });
    return (await this.transport.request<Order>({ method: 'POST', path: '/v1/orders', json: { upload_id: ticket.upload_id, ...fields }, idempotencyKey: key, retryConflict: true, ...signal })).body;
  }

  /** The customer's answer to `Action Required` (`POST /v1/orders/{id}/responses`). */
  async respond(orderId: string, params: { message: string; uploadIds?: string[]; idempotencyKey?: string }): Promise<Order> {
    return (
      await this.transport.request<Order>({
        method: 'POST',
        path: `/v1/orders/${encodeURIComponent(orderId)}/responses`,
        json: { message: params.message, ...(params.uploadIds ? { upload_ids: params.uploadIds } : {}) },
        idempotencyKey: params.idempotencyKey ?? globalThis.crypto.randomUUID(),
      })
    ).body;
  }
}

class ProjectsResource {
  constructor(private readonly transport: Transport) {}

  async list(): Promise<Project[]> {
    return (await this.transport.request<Project[]>({ method: 'GET', path: '/v1/projects' })).body;
  }

  async get(projectId: string): Promise<Project> {
    return (await this.transport.request<Project>({ method: 'GET', path: `/v1/projects/${encodeURIComponent(projectId)}` })).body;
  }
}

class OrganizationsResource {
  constructor(private readonly transport: Transport) {}

  async members(organizationId: string): Promise<OrganizationMembers> {
    return (await this.transport.request<OrganizationMembers>({ method: 'GET', path: `/v1/organizations/${encodeURIComponent(organizationId)}/members` })).body;
  }
}

/** Public certificate routes: no credentials needed. */
class CertificatesResource {
  constructor(private readonly transport: Transport) {}

  /** `GET /v1/certificates/{id}`: the public certificate (status, jws). */
  async get(certificateId: string): Promise<PublicCertificate> {
    return (await this.transport.request<PublicCertificate>({ method: 'GET', path: `/v1/certificates/${encodeURIComponent(certificateId)}`, auth: false })).body;
  }

  /** The root certificates (PEM) of every chain that signed the service's Content Credentials (`/.well-known/c2pa-trust-anchors.pem`). */
  async c2paTrustAnchors(): Promise<string> {
    return (await this.transport.request<string>({ method: 'GET', path: '/.well-known/c2pa-trust-anchors.pem', auth: false, raw: true })).body;
  }

  /** The service's signing keys (`/.well-known/jwks.json`), for `verifyCertificate`. */
  async jwks(): Promise<{ keys: Array<Record<string, unknown>> }> {
    return (await this.transport.request<{ keys: Array<Record<string, unknown>> }>({ method: 'GET', path: '/.well-known/jwks.json', auth: false })).body;
  }
}

export { CertdeskError };
