/**
 * The write side of /v1 (scope `enterprise-api-access/write`): POST /v1/uploads, POST /v1/orders,
 * POST /v1/orders/{order_id}/responses; and GET /v1/orders/{order_id} (read scope). Handlers translate
 * HTTP to the intake services (domain/intake) and domain errors back to HTTP.
 */
import { Type, type Static, type TSchema } from '@sinclair/typebox';
import type { FastifyPluginAsync } from 'fastify';
import multipart from '@fastify/multipart';
import {
  CreateOrderMultipartRequest,
  CreateOrderRequest,
  OrderPathParams,
  OrderResponseRequest,
  uploadRequestSchema,
  UploadTicket,
  type CreateOrderMultipartRequestT,
  type CreateOrderRequestT,
  type OrderResponseRequestT,
  type UploadRequestT,
} from '../../contract/intake-schemas.js';
import { ErrorDetail, HTTPValidationError, Order, SCOPES, type OrderT } from '../../contract/schemas.js';
import { ApiError, NotFoundError } from '../../domain/errors.js';
import { createOrderFromFile, createOrderFromUpload, respondToOrder, UPLOAD_PROBLEM_MESSAGES, UploadRejectedError, type IntakeDeps } from '../../domain/intake/order-intake.service.js';
import { announceUpload, UploadTooLargeError } from '../../domain/intake/upload.service.js';
import { findVisibleOrder } from '../../domain/orders/index.js';
import { requireScope } from '../../oauth/index.js';
import { readSecurity, ref, SECURITY_SCHEME } from '../openapi/route-docs.js';
import { RequestValidationError } from '../validation/index.js';
import { completeIdempotencyIn, IdempotencyHeaderSchema, idempotencyHooks, markRetryable, multipartRequestHash } from '../plugins/idempotency.js';
import { discardUnreadMultipart, incompleteForm, MULTIPART_MAX_FILE_BYTES, multipartOrderBody } from './multipart-order-body.js';

/**
 * A write with no body at all (no Content-Type, empty payload) skips Fastify's body validation, so the
 * handler checks it: pydantic's answer for an absent body is `missing` at `["body"]`.
 */
function requireBody(body: unknown): void {
  if (body === undefined || body === null) {
    throw new RequestValidationError([{ type: 'missing', loc: ['body'], input: null, messageKey: 'validation.missing' }]);
  }
}

/** An unusable upload id as a pydantic-style 422 on the field that named it. */
export function uploadRejection(err: UploadRejectedError, field: 'upload_id' | 'upload_ids' | 'file'): RequestValidationError {
  const loc = field === 'upload_ids' && err.index !== null ? ['body', 'upload_ids', err.index] : ['body', field === 'file' ? 'file' : 'upload_id'];
  return new RequestValidationError([{ type: 'value_error', loc, input: err.uploadId, ctx: { reason: err.problem }, messageKey: UPLOAD_PROBLEM_MESSAGES[err.problem].api }]);
}

function writeSecurity(): Array<Record<string, string[]>> {
  return [{ [SECURITY_SCHEME]: [SCOPES.write] }];
}

function responses(status: number, ok: TSchema, extra: Record<number, string> = {}): Record<string, TSchema> {
  const detail = (description: string) => Type.Unsafe<Static<typeof ErrorDetail>>({ ...Type.Ref(ErrorDetail.$id!), description });
  const out: Record<string, TSchema> = {
    [status]: ok,
    401: detail('Missing, invalid or expired access token.'),
    403: detail('The access token does not grant the required scope, or the caller\'s project role does not allow the write.'),
    404: detail('Not found, or not visible to the caller.'),
  };
  for (const [code, description] of Object.entries(extra)) out[code] = detail(description);
  out[422] = Type.Unsafe<Static<typeof HTTPValidationError>>({ ...Type.Ref(HTTPValidationError.$id!), description: 'Validation Error' });
  return out;
}

const TOO_MANY_UPLOADS =
  'A per-user upload limit holds: too many uploads created in the window, or too many (or too many bytes of) uploads not yet used by an order. `Retry-After` says when to try again.';

const lang = Type.Optional(Type.String({ description: 'Language of human-readable messages (en, fr, de, es, ja).' }));
const LangHeader = Type.Object({ lang });
const WriteHeaders = Type.Object({ lang, 'Idempotency-Key': IdempotencyHeaderSchema });

/** Registers the intake routes over the process's storage, upload presigner, clock and orders context. */
export const orderIntakeRoutes: FastifyPluginAsync = async (app) => {
  const { config, database, storage, clock, orders, uploadPresigner, uploadLimits } = app.services;
  const idempotent = idempotencyHooks(database.db, clock);
  // Writes take JSON (and multipart on POST /v1/orders) only. Fastify's built-in text/plain parser would
  // hand a string to routes whose body schema is keyed by content type, which skips validation there:
  // without it every other media type is a plain 415 on every write route.
  app.removeContentTypeParser('text/plain');
  // Multipart bodies in this plugin only; files are streamed (multipart-order-body.ts), never buffered.
  await app.register(multipart, { limits: { fileSize: MULTIPART_MAX_FILE_BYTES, files: 2, fields: 50, fieldSize: 100_000, parts: 60 } });
  const intakeDeps: IntakeDeps = { db: database.db, clock, storage, orders, onJobQueued: () => app.services.jobQueued() };

  app.post<{ Body: UploadRequestT }>(
    '/v1/uploads',
    {
      onRequest: requireScope(SCOPES.write),
      config: { operationName: 'create_upload' },
      ...idempotent,
      schema: {
        summary: 'Create Upload',
        description: 'Announces a file and returns a presigned URL to which the client PUTs its bytes directly (object storage).',
        tags: ['orders'],
        headers: WriteHeaders,
        body: uploadRequestSchema(config.maxUploadBytes),
        security: writeSecurity(),
        response: responses(201, UploadTicket, { 409: 'A request with the same Idempotency-Key is still running.', 429: TOO_MANY_UPLOADS }),
      },
    },
    async (request, reply) => {
      try {
        const ticket = await announceUpload(
          { db: database.db, clock, presigner: uploadPresigner, maxUploadBytes: config.maxUploadBytes, uploadTtlSeconds: config.uploadTtlSeconds, limits: uploadLimits },
          request.principal,
          request.body,
        );
        return reply.code(201).header('Cache-Control', 'no-store').send(ticket);
      } catch (err) {
        if (err instanceof UploadTooLargeError) {
          throw new RequestValidationError([{ type: 'less_than_equal', loc: ['body', 'size'], input: request.body.size, ctx: { le: err.limit }, messageKey: 'validation.less_than_equal' }]);
        }
        throw err;
      }
    },
  );

  app.post<{ Body: CreateOrderRequestT | CreateOrderMultipartRequestT }>(
    '/v1/orders',
    {
      onRequest: requireScope(SCOPES.write),
      config: { operationName: 'create_order' },
      ...idempotent,
      preValidation: multipartOrderBody(),
      onResponse: discardUnreadMultipart,
      schema: {
        summary: 'Create Order',
        description:
          'Creates an order from an upload whose bytes have arrived (JSON with `upload_id`), or from a file sent in the request (`multipart/form-data`, at most 25 MiB, the fields before the file: nothing is stored unless every check passed). The order starts `In Progress` and its analysis is queued.',
        tags: ['orders'],
        headers: WriteHeaders,
        body: { content: { 'application/json': { schema: CreateOrderRequest }, 'multipart/form-data': { schema: CreateOrderMultipartRequest } } },
        security: writeSecurity(),
        response: responses(201, ref(Order), {
          409: 'A request with the same Idempotency-Key is still running.',
          413: 'The multipart file is larger than 25 MiB.',
          429: TOO_MANY_UPLOADS,
        }),
      },
    },
    async (request, reply) => {
      requireBody(request.body);
      const pending = request.multipartFile;
      const { file: _file, upload_id: uploadId, ...fields } = { file: undefined, upload_id: undefined, ...request.body };
      const order = { ...fields, project_id: fields.project_id ?? null };
      // The 201 as it is sent, stored under the Idempotency-Key in the transaction that creates the order.
      let payload = '';
      const answer = (created: OrderT) => {
        reply.code(201).header('Location', `/v1/orders/${encodeURIComponent(created.order_id)}`).header('Cache-Control', 'no-store').type('application/json; charset=utf-8');
        payload = reply.serialize(created) as string;
      };
      try {
        // Without a key the creation stays one statement, no transaction around it (the intake's hot path).
        const keyed = request.idempotency !== undefined;
        if (!pending) {
          const created = await createOrderFromUpload(intakeDeps, request.principal, { ...order, upload_id: uploadId! }, {
            inTransaction: keyed
              ? async (trx, created) => {
                  answer(created);
                  await completeIdempotencyIn(trx, request, reply, payload);
                }
              : undefined,
          });
          if (!keyed) answer(created);
          return reply.send(payload);
        }
        let contentFingerprint = '';
        const { order: created } = await createOrderFromFile(
          { ...intakeDeps, uploadTtlSeconds: config.uploadTtlSeconds, limits: uploadLimits },
          request.principal,
          order,
          { fileName: pending.fileName, contentType: pending.contentType, take: () => pending.take(), maxBytes: MULTIPART_MAX_FILE_BYTES, truncated: () => pending.truncated },
          {
            beforeCreate: async (received) => {
              pending.received(received.sha256);
              contentFingerprint = (await pending.contentFingerprint())!;
              const after = await pending.partsAfterFile();
              if (after.length > 0) {
                throw new RequestValidationError(after.map((name) => ({ type: 'extra_forbidden', loc: ['body', name], input: null, messageKey: 'validation.multipart_part_after_file' })));
              }
            },
            inTransaction: keyed
              ? async (trx, created) => {
                  answer(created);
                  await completeIdempotencyIn(trx, request, reply, payload, multipartRequestHash(request.idempotency!.hash, contentFingerprint));
                }
              : undefined,
          },
        );
        if (!keyed) answer(created);
        return reply.send(payload);
      } catch (err) {
        // The form broke off inside the file: whatever was stored is gone again (createOrderFromFile), 400;
        // the whole form sent again under the same Idempotency-Key may succeed, so the key is not kept.
        if (pending?.incomplete) {
          markRetryable(request);
          throw err instanceof ApiError && err.statusCode === 400 ? err : incompleteForm(err);
        }
        if (err instanceof UploadRejectedError) {
          // Bytes that have not arrived yet may arrive: a retry can succeed, so the key is not kept.
          if (err.problem === 'empty') markRetryable(request);
          throw uploadRejection(err, pending ? 'file' : 'upload_id');
        }
        if (err instanceof UploadTooLargeError || (err as { code?: string }).code === 'FST_REQ_FILE_TOO_LARGE') throw new ApiError(413, 'errors.payload_too_large');
        // The form broke off or was malformed while the file was read: the client's fault.
        if (typeof (err as { code?: string }).code === 'string' && (err as { code: string }).code.startsWith('FST_')) throw new ApiError(400, 'errors.bad_request', { cause: err });
        throw err;
      }
    },
  );

  app.get<{ Params: Static<typeof OrderPathParams> }>(
    '/v1/orders/:order_id',
    {
      onRequest: requireScope(SCOPES.read),
      config: { operationName: 'get_order' },
      schema: {
        summary: 'Get Order',
        description: 'One order, with presigned URLs; 404 when it does not exist or the caller may not see it.',
        tags: ['orders'],
        params: OrderPathParams,
        headers: LangHeader,
        security: readSecurity(),
        response: responses(200, ref(Order)),
      },
    },
    async (request, reply) => {
      const order = await findVisibleOrder(orders, request.principal, request.params.order_id);
      if (!order) throw new NotFoundError('errors.order_not_found');
      return reply.header('Cache-Control', 'no-store').send(order);
    },
  );

  app.post<{ Params: Static<typeof OrderPathParams>; Body: OrderResponseRequestT }>(
    '/v1/orders/:order_id/responses',
    {
      onRequest: requireScope(SCOPES.write),
      config: { operationName: 'respond_to_order' },
      ...idempotent,
      schema: {
        summary: 'Respond To Order',
        description: 'The customer\'s answer to `Action Required` (explanation and evidence uploads); the order returns to `In Progress` for review.',
        tags: ['orders'],
        params: OrderPathParams,
        headers: WriteHeaders,
        body: OrderResponseRequest,
        security: writeSecurity(),
        response: responses(201, ref(Order), { 409: 'The order is not `Action Required`, or a request with the same Idempotency-Key is still running.' }),
      },
    },
    async (request, reply) => {
      requireBody(request.body);
      try {
        const order = await respondToOrder(intakeDeps, request.principal, request.params.order_id, request.body);
        return reply.code(201).header('Cache-Control', 'no-store').send(order);
      } catch (err) {
        if (err instanceof UploadRejectedError) {
          if (err.problem === 'empty') markRetryable(request);
          throw uploadRejection(err, 'upload_ids');
        }
        throw err;
      }
    },
  );
};
