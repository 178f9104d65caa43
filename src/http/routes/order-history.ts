/**
 * GET /v1/orders/{order_id}/history (read scope): why an order is where it is, as the events of its
 * history, oldest first (docs/history.md). Same visibility as GET /v1/orders/{order_id}: 404 outside the
 * caller's view.
 */
import type { Static } from '@sinclair/typebox';
import type { FastifyPluginAsync } from 'fastify';
import { OrderHistory } from '../../contract/history-schemas.js';
import { OrderPathParams } from '../../contract/intake-schemas.js';
import { SCOPES } from '../../contract/schemas.js';
import { NotFoundError } from '../../domain/errors.js';
import { getOrderHistory } from '../../domain/history/order-history.service.js';
import { requireScope } from '../../oauth/index.js';
import { OrdersHeaders } from './orders.js';
import { apiResponses, readSecurity, ref } from '../openapi/route-docs.js';

export const orderHistoryRoutes: FastifyPluginAsync = async (app) => {
  const db = app.services.database.db;

  app.get<{ Params: Static<typeof OrderPathParams> }>(
    '/v1/orders/:order_id/history',
    {
      onRequest: requireScope(SCOPES.read),
      config: { operationName: 'get_order_history' },
      schema: {
        summary: 'Get Order History',
        description:
          'The events of an order, oldest first: its creation, every state change with its reason, the analysis, the customer\'s responses and the reviewers\' actions, each with who, when and what changed. 404 when the order does not exist or the caller may not see it.',
        tags: ['orders'],
        params: OrderPathParams,
        headers: OrdersHeaders,
        security: readSecurity(),
        response: apiResponses(ref(OrderHistory)),
      },
    },
    async (request, reply) => {
      const history = await getOrderHistory(db, request.principal, request.params.order_id);
      if (!history) throw new NotFoundError('errors.order_not_found');
      return reply.header('Cache-Control', 'no-store').send(history);
    },
  );
};
