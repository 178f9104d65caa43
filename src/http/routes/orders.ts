/**
 * GET /v1/orders (get_orders_v1_orders_get): one page of the organization's orders the caller sees, with the
 * scope's per-state counts. The handler only translates: HTTP parameters in, domain errors to HTTP errors,
 * and the listing out as JSON text assembled from the stored documents (never re-serialized by Fastify).
 */
import { Type, type Static } from '@sinclair/typebox';
import type { FastifyPluginAsync } from 'fastify';
import { GetOrdersResponse, SCOPES } from '../../contract/schemas.js';
import { NotFoundError } from '../../domain/errors.js';
import {
  DEFAULT_PAGE_LIMIT,
  InvalidPageTokenError,
  listOrdersBody,
  MAX_PAGE_LIMIT,
  OrderScopeNotFoundError,
} from '../../domain/orders/index.js';
import { requireScope } from '../../oauth/index.js';
import { apiResponses, readSecurity, ref } from '../openapi/route-docs.js';
import { invalidParameter } from '../validation/index.js';

/** Query parameters of GET /v1/orders (also their OpenAPI description). */
export const OrdersQuery = Type.Object({
  project_id: Type.String({ description: 'Project filter: `All Projects`, `Personal Certificates`, or the id of a project.' }),
  preview: Type.Optional(Type.Boolean({ default: false, description: 'true: OrderPreview items in order_previews; false: full orders in orders.' })),
  page_token: Type.Optional(Type.String({ description: 'next_page_token of the previous response.' })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_PAGE_LIMIT, default: DEFAULT_PAGE_LIMIT, description: 'Maximum orders per page.' })),
});

/** Header parameters of GET /v1/orders. */
export const OrdersHeaders = Type.Object({
  lang: Type.Optional(Type.String({ description: 'Language of human-readable messages (en, fr, de, es, ja).' })),
});

/** Registers GET /v1/orders over the process's orders context (page-token and presign keys). */
export const orderRoutes: FastifyPluginAsync = async (app) => {
  const context = app.services.orders;

  app.get<{ Querystring: Static<typeof OrdersQuery> }>(
    '/v1/orders',
    {
      onRequest: requireScope(SCOPES.read),
      config: { operationName: 'get_orders' },
      schema: {
        summary: 'Get Orders',
        description: 'Lists the certificate orders of the organization that the caller sees, newest first, paginated.',
        tags: ['orders'],
        querystring: OrdersQuery,
        headers: OrdersHeaders,
        security: readSecurity(),
        // Documents the body; the handler sends pre-assembled JSON text, which Fastify does not re-serialize.
        response: apiResponses(ref(GetOrdersResponse)),
      },
    },
    async (request, reply) => {
      const { project_id: projectId, preview, page_token: pageToken, limit } = request.query;
      let body: Buffer;
      try {
        // The database assembles the page from the stored documents; the service hands over its UTF-8 bytes.
        body = await listOrdersBody(context, request.principal, { projectId, preview, pageToken, limit });
      } catch (err) {
        if (err instanceof InvalidPageTokenError) throw invalidParameter('query', 'page_token', pageToken ?? null, 'validation.invalid_page_token');
        if (err instanceof OrderScopeNotFoundError) throw new NotFoundError('errors.project_not_found');
        throw err;
      }
      // Bytes go out as they are: the stored documents are never parsed, and Fastify does not re-serialize a Buffer.
      return reply.header('Content-Type', 'application/json; charset=utf-8').header('Cache-Control', 'no-store').send(body);
    },
  );
};
