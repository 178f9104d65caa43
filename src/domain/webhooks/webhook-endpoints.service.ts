/**
 * Managing webhook endpoints (DECISIONS 10): only the organization's administrators (anyone else 403;
 * the scope check, read to list and write to change, is the route's), only their own organization's
 * endpoints (another organization's id is 404, as an unknown one). URLs are checked when saved
 * (webhook-url.ts) and again at each connection (the sender).
 */
import { randomUUID } from 'node:crypto';
import type { CreateWebhookEndpointRequestT, UpdateWebhookEndpointRequestT, WebhookDeliveryT, WebhookEndpointT, WebhookEventType } from '../../contract/webhook-schemas.js';
import type { Executor } from '../../storage/database.js';
import { ApiError, ForbiddenError, NotFoundError } from '../errors.js';
import type { Principal } from '../principal.js';
import { checkWebhookUrl, type ResolveHost } from './webhook-url.js';
import { newWebhookSecret, sealWebhookSecret } from './webhook-secret.js';
import {
  deleteEndpoint,
  findEndpoint,
  insertEndpoint,
  insertTestDelivery,
  listDeliveries,
  listEndpoints,
  requeueDelivery,
  rotateEndpointSecret,
  updateEndpoint,
  type DeliveryListRow,
  type EndpointRow,
} from './webhook.repository.js';

/** How long the secret before a rotation keeps signing beside the new one. */
export const SECRET_ROTATION_OVERLAP_MS = 24 * 3_600_000;

export interface WebhookEndpointDeps {
  db: Executor;
  masterKey: string | null;
  allowPrivate: boolean;
  resolve?: ResolveHost;
}

export class InvalidDeliveryPageTokenError extends Error {
  override name = 'InvalidDeliveryPageTokenError';
}

/** Who manages webhook endpoints: the organization's administrators (the web pages ask before showing a form). */
export function requireWebhookAdmin(principal: Principal): void {
  if (!principal.isAdmin) throw new ForbiddenError('errors.webhook_admin_only');
}

export function toEndpointObject(row: EndpointRow): WebhookEndpointT {
  return {
    id: row.id,
    url: row.url,
    events: row.events as WebhookEventType[],
    description: row.description,
    status: row.status,
    disabled_reason: row.disabled_reason,
    created_at: row.created_at.toISOString(),
  };
}

function toDeliveryObject(row: DeliveryListRow): WebhookDeliveryT {
  return {
    id: row.id,
    event_id: row.event_id,
    event_type: row.event_type as WebhookDeliveryT['event_type'],
    status: row.status,
    attempts: row.attempts,
    last_attempt_at: row.last_attempt_at?.toISOString() ?? null,
    next_attempt_at: row.next_attempt_at?.toISOString() ?? null,
    response_status: row.response_status,
    latency_ms: row.latency_ms,
  };
}

async function endpointOf(deps: WebhookEndpointDeps, principal: Principal, id: string): Promise<EndpointRow> {
  requireWebhookAdmin(principal);
  const row = await findEndpoint(deps.db, principal.organizationId, id);
  if (!row) throw new NotFoundError('errors.webhook_endpoint_not_found');
  return row;
}

export async function createWebhookEndpoint(deps: WebhookEndpointDeps, principal: Principal, body: CreateWebhookEndpointRequestT): Promise<WebhookEndpointT & { secret: string }> {
  requireWebhookAdmin(principal);
  const url = await checkWebhookUrl(body.url, deps);
  const id = randomUUID();
  const secret = newWebhookSecret();
  const row = await insertEndpoint(deps.db, {
    id,
    organization_id: principal.organizationId,
    url: url.href,
    events: [...new Set(body.events)],
    description: body.description ?? null,
    secret: sealWebhookSecret(secret, deps.masterKey, id),
  });
  return { ...toEndpointObject(row), secret };
}

export async function listWebhookEndpoints(deps: WebhookEndpointDeps, principal: Principal): Promise<{ webhook_endpoints: WebhookEndpointT[] }> {
  requireWebhookAdmin(principal);
  return { webhook_endpoints: (await listEndpoints(deps.db, principal.organizationId)).map(toEndpointObject) };
}

export async function getWebhookEndpoint(deps: WebhookEndpointDeps, principal: Principal, id: string): Promise<WebhookEndpointT> {
  return toEndpointObject(await endpointOf(deps, principal, id));
}

export async function updateWebhookEndpoint(deps: WebhookEndpointDeps, principal: Principal, id: string, body: UpdateWebhookEndpointRequestT): Promise<WebhookEndpointT> {
  await endpointOf(deps, principal, id);
  const url = body.url === undefined ? undefined : (await checkWebhookUrl(body.url, deps)).href;
  const row = await updateEndpoint(deps.db, principal.organizationId, id, {
    url,
    events: body.events ? [...new Set(body.events)] : undefined,
    description: body.description,
    status: body.status,
  });
  if (!row) throw new NotFoundError('errors.webhook_endpoint_not_found');
  return toEndpointObject(row);
}

export async function deleteWebhookEndpoint(deps: WebhookEndpointDeps, principal: Principal, id: string): Promise<void> {
  requireWebhookAdmin(principal);
  if (!(await deleteEndpoint(deps.db, principal.organizationId, id))) throw new NotFoundError('errors.webhook_endpoint_not_found');
}

export async function rotateWebhookSecret(deps: WebhookEndpointDeps, principal: Principal, id: string): Promise<{ secret: string }> {
  const row = await endpointOf(deps, principal, id);
  const secret = newWebhookSecret();
  if (!(await rotateEndpointSecret(deps.db, principal.organizationId, row.id, sealWebhookSecret(secret, deps.masterKey, row.id), SECRET_ROTATION_OVERLAP_MS))) {
    throw new NotFoundError('errors.webhook_endpoint_not_found');
  }
  return { secret };
}

/** The page cursor: the last row's creation time (exact microseconds) and id. Bound to nothing else: the endpoint was checked first. */
function encodeCursor(row: DeliveryListRow): string {
  return Buffer.from(JSON.stringify([1, row.created_micros, row.id])).toString('base64url');
}

function decodeCursor(token: string): { createdMicros: string; id: string } {
  try {
    if (token.length > 200) throw new Error('too long');
    const value = JSON.parse(Buffer.from(token, 'base64url').toString('utf8')) as unknown;
    if (Array.isArray(value) && value.length === 3 && value[0] === 1 && typeof value[1] === 'string' && /^\d{1,20}$/.test(value[1]) && typeof value[2] === 'string' && /^[0-9a-f-]{36}$/.test(value[2])) {
      return { createdMicros: value[1], id: value[2] };
    }
  } catch {
    // fall through
  }
  throw new InvalidDeliveryPageTokenError('invalid page token');
}

export async function listWebhookDeliveries(
  deps: WebhookEndpointDeps,
  principal: Principal,
  id: string,
  query: { pageToken?: string; limit?: number },
): Promise<{ deliveries: WebhookDeliveryT[]; next_page_token: string | null }> {
  const endpoint = await endpointOf(deps, principal, id);
  const limit = query.limit ?? 50;
  const after = query.pageToken ? decodeCursor(query.pageToken) : null;
  const rows = await listDeliveries(deps.db, endpoint.id, limit + 1, after);
  const page = rows.slice(0, limit);
  return { deliveries: page.map(toDeliveryObject), next_page_token: rows.length > limit ? encodeCursor(page[page.length - 1]!) : null };
}

/** Sends a delivery again (status back to pending, a job due now), whatever its status was. */
export async function retryWebhookDelivery(deps: WebhookEndpointDeps, principal: Principal, id: string, deliveryId: string): Promise<void> {
  const endpoint = await endpointOf(deps, principal, id);
  if (!(await requeueDelivery(deps.db, endpoint.id, deliveryId))) throw new NotFoundError('errors.webhook_delivery_not_found');
}

/** A test event cannot be sent to a disabled endpoint (its delivery would only be marked failed). */
export class WebhookEndpointDisabledError extends ApiError {
  override name = 'WebhookEndpointDisabledError';
  constructor() {
    super(409, 'errors.webhook_endpoint_disabled');
  }
}

/**
 * "Send test event" (the organization page): a `webhook.test` event for this endpoint only, delivered,
 * signed, retried and logged like any other. @returns the delivery id.
 */
export async function sendTestWebhookEvent(deps: WebhookEndpointDeps, principal: Principal, id: string): Promise<{ delivery_id: string }> {
  const endpoint = await endpointOf(deps, principal, id);
  if (endpoint.status !== 'enabled') throw new WebhookEndpointDisabledError();
  const deliveryId = await insertTestDelivery(deps.db, principal.organizationId, endpoint.id);
  if (!deliveryId) throw new NotFoundError('errors.webhook_endpoint_not_found');
  return { delivery_id: deliveryId };
}
