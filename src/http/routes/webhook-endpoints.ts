/**
 * Webhook endpoints over HTTP (DECISIONS 10): `/v1/webhook-endpoints[/{endpoint_id}]`, rotate-secret, the
 * delivery log and "send again". Organization administrators' clients only (write scope to change, read
 * to list and read); handlers translate HTTP to domain/webhooks and its errors back.
 */
import { Type, type Static, type TSchema } from '@sinclair/typebox';
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import { ErrorDetail, HTTPValidationError, SCOPES } from '../../contract/schemas.js';
import {
  CreateWebhookEndpointRequest,
  UpdateWebhookEndpointRequest,
  WebhookDeliveriesQuery,
  WebhookDeliveryPage,
  WebhookDeliveryPathParams,
  WebhookEndpoint,
  WebhookEndpointList,
  WebhookEndpointPathParams,
  WebhookEndpointWithSecret,
  WebhookSecret,
  type CreateWebhookEndpointRequestT,
  type UpdateWebhookEndpointRequestT,
} from '../../contract/webhook-schemas.js';
import {
  createWebhookEndpoint,
  deleteWebhookEndpoint,
  getWebhookEndpoint,
  InvalidDeliveryPageTokenError,
  listWebhookDeliveries,
  listWebhookEndpoints,
  retryWebhookDelivery,
  rotateWebhookSecret,
  updateWebhookEndpoint,
  type WebhookEndpointDeps,
} from '../../domain/webhooks/webhook-endpoints.service.js';
import { WebhookUrlRefusedError } from '../../domain/webhooks/webhook-url.js';
import { requireScope } from '../../oauth/index.js';
import { readSecurity, ref, SECURITY_SCHEME } from '../openapi/route-docs.js';
import { invalidParameter, RequestValidationError } from '../validation/index.js';

const lang = Type.Optional(Type.String({ description: 'Language of human-readable messages (en, fr, de, es, ja).' }));
const LangHeader = Type.Object({ lang });
const writeSecurity = () => [{ [SECURITY_SCHEME]: [SCOPES.write] }];

function responses(status: number, ok: TSchema): Record<string, TSchema> {
  const detail = (description: string) => Type.Unsafe<Static<typeof ErrorDetail>>({ ...Type.Ref(ErrorDetail.$id!), description });
  return {
    [status]: ok,
    401: detail('Missing, invalid or expired access token.'),
    403: detail("The access token does not grant the required scope, or its user is not one of the organization's administrators."),
    404: detail('No such endpoint (or delivery) in the caller’s organization.'),
    422: Type.Unsafe<Static<typeof HTTPValidationError>>({ ...Type.Ref(HTTPValidationError.$id!), description: 'Validation Error' }),
  };
}

/** A refused URL as the 422 of DECISIONS 10, naming `["body", "url"]`. */
async function urlChecked<T>(input: unknown, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (err) {
    if (err instanceof WebhookUrlRefusedError) {
      throw new RequestValidationError([{ type: 'value_error', loc: ['body', 'url'], input, ctx: { reason: err.reason }, messageKey: 'validation.webhook_url_refused' }]);
    }
    throw err;
  }
}

const requireBody = (request: FastifyRequest) => {
  if (request.body === undefined || request.body === null) {
    throw new RequestValidationError([{ type: 'missing', loc: ['body'], input: null, messageKey: 'validation.missing' }]);
  }
};

export const webhookEndpointRoutes: FastifyPluginAsync = async (app) => {
  const { config, database } = app.services;
  const deps: WebhookEndpointDeps = { db: database.db, masterKey: config.masterKey, allowPrivate: config.webhookAllowPrivate };
  const tags = ['webhooks'];

  app.post<{ Body: CreateWebhookEndpointRequestT }>(
    '/v1/webhook-endpoints',
    {
      onRequest: requireScope(SCOPES.write),
      config: { operationName: 'create_webhook_endpoint' },
      schema: {
        summary: 'Create Webhook Endpoint',
        description: 'Adds an endpoint that receives the chosen events, signed per Standard Webhooks. The answer carries the signing secret: it is shown only here (and on rotation).',
        tags,
        headers: LangHeader,
        body: CreateWebhookEndpointRequest,
        security: writeSecurity(),
        response: responses(201, ref(WebhookEndpointWithSecret)),
      },
    },
    async (request, reply) => {
      requireBody(request);
      const created = await urlChecked(request.body.url, () => createWebhookEndpoint(deps, request.principal, request.body));
      return reply.code(201).header('Cache-Control', 'no-store').send(created);
    },
  );

  app.get(
    '/v1/webhook-endpoints',
    {
      onRequest: requireScope(SCOPES.read),
      config: { operationName: 'list_webhook_endpoints' },
      schema: { summary: 'List Webhook Endpoints', description: "The organization's endpoints, oldest first.", tags, headers: LangHeader, security: readSecurity(), response: responses(200, ref(WebhookEndpointList)) },
    },
    async (request) => listWebhookEndpoints(deps, request.principal),
  );

  app.get<{ Params: Static<typeof WebhookEndpointPathParams> }>(
    '/v1/webhook-endpoints/:endpoint_id',
    {
      onRequest: requireScope(SCOPES.read),
      config: { operationName: 'get_webhook_endpoint' },
      schema: { summary: 'Get Webhook Endpoint', description: 'One endpoint; `disabled_reason` says why the service disabled it.', tags, params: WebhookEndpointPathParams, headers: LangHeader, security: readSecurity(), response: responses(200, ref(WebhookEndpoint)) },
    },
    async (request) => getWebhookEndpoint(deps, request.principal, request.params.endpoint_id),
  );

  app.patch<{ Params: Static<typeof WebhookEndpointPathParams>; Body: UpdateWebhookEndpointRequestT }>(
    '/v1/webhook-endpoints/:endpoint_id',
    {
      onRequest: requireScope(SCOPES.write),
      config: { operationName: 'update_webhook_endpoint' },
      schema: {
        summary: 'Update Webhook Endpoint',
        description: 'Changes the given fields. Setting `status` (to `enabled` or `disabled`) clears the reason the service disabled it for.',
        tags,
        params: WebhookEndpointPathParams,
        headers: LangHeader,
        body: UpdateWebhookEndpointRequest,
        security: writeSecurity(),
        response: responses(200, ref(WebhookEndpoint)),
      },
    },
    async (request) => {
      requireBody(request);
      return urlChecked(request.body.url, () => updateWebhookEndpoint(deps, request.principal, request.params.endpoint_id, request.body));
    },
  );

  app.delete<{ Params: Static<typeof WebhookEndpointPathParams> }>(
    '/v1/webhook-endpoints/:endpoint_id',
    {
      onRequest: requireScope(SCOPES.write),
      config: { operationName: 'delete_webhook_endpoint' },
      schema: {
        summary: 'Delete Webhook Endpoint',
        description: 'Deletes the endpoint and its delivery log; its pending deliveries are not sent.',
        tags,
        params: WebhookEndpointPathParams,
        headers: LangHeader,
        security: writeSecurity(),
        response: responses(204, Type.Null({ description: 'Deleted.' })),
      },
    },
    async (request, reply) => {
      await deleteWebhookEndpoint(deps, request.principal, request.params.endpoint_id);
      return reply.code(204).send();
    },
  );

  app.post<{ Params: Static<typeof WebhookEndpointPathParams> }>(
    '/v1/webhook-endpoints/:endpoint_id/rotate-secret',
    {
      onRequest: requireScope(SCOPES.write),
      config: { operationName: 'rotate_webhook_endpoint_secret' },
      schema: {
        summary: 'Rotate Webhook Endpoint Secret',
        description: 'A new signing secret, shown only here. For 24 hours deliveries carry two signatures, one with each secret.',
        tags,
        params: WebhookEndpointPathParams,
        headers: LangHeader,
        security: writeSecurity(),
        response: responses(200, ref(WebhookSecret)),
      },
    },
    async (request, reply) => reply.header('Cache-Control', 'no-store').send(await rotateWebhookSecret(deps, request.principal, request.params.endpoint_id)),
  );

  app.get<{ Params: Static<typeof WebhookEndpointPathParams>; Querystring: Static<typeof WebhookDeliveriesQuery> }>(
    '/v1/webhook-endpoints/:endpoint_id/deliveries',
    {
      onRequest: requireScope(SCOPES.read),
      config: { operationName: 'list_webhook_deliveries' },
      schema: {
        summary: 'List Webhook Deliveries',
        description: 'The delivery log of an endpoint, newest first, paged with `next_page_token`.',
        tags,
        params: WebhookEndpointPathParams,
        querystring: WebhookDeliveriesQuery,
        headers: LangHeader,
        security: readSecurity(),
        response: responses(200, ref(WebhookDeliveryPage)),
      },
    },
    async (request) => {
      try {
        return await listWebhookDeliveries(deps, request.principal, request.params.endpoint_id, { pageToken: request.query.page_token, limit: request.query.limit });
      } catch (err) {
        if (err instanceof InvalidDeliveryPageTokenError) throw invalidParameter('query', 'page_token', request.query.page_token ?? null, 'validation.invalid_page_token');
        throw err;
      }
    },
  );

  app.post<{ Params: Static<typeof WebhookDeliveryPathParams> }>(
    '/v1/webhook-endpoints/:endpoint_id/deliveries/:delivery_id/retry',
    {
      onRequest: requireScope(SCOPES.write),
      config: { operationName: 'retry_webhook_delivery' },
      schema: {
        summary: 'Retry Webhook Delivery',
        description: 'Sends the delivery again (same `webhook-id`), whatever its status; it is queued and sent in the background.',
        tags,
        params: WebhookDeliveryPathParams,
        headers: LangHeader,
        security: writeSecurity(),
        response: responses(202, Type.Null({ description: 'Queued.' })),
      },
    },
    async (request, reply) => {
      await retryWebhookDelivery(deps, request.principal, request.params.endpoint_id, request.params.delivery_id);
      app.services.jobQueued();
      return reply.code(202).send();
    },
  );
};
