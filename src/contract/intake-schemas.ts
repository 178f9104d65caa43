/**
 * Request and response bodies of the write side (uploads, order creation, responses). The same TypeBox
 * schemas validate requests (Ajv, pydantic-style 422s), describe the OpenAPI document and type the code.
 */
import { Type, type Static } from '@sinclair/typebox';

const UUID = { format: 'uuid' } as const;

/** POST /v1/uploads body; `maxBytes` is the deployment's MAX_UPLOAD_BYTES. */
export function uploadRequestSchema(maxBytes: number) {
  return Type.Object(
    {
      file_name: Type.String({ minLength: 1, maxLength: 1000, description: 'Name of the file (the default `asset_name` of the order).' }),
      content_type: Type.String({ minLength: 3, maxLength: 255, pattern: '^[A-Za-z0-9!#$&^_.+-]+/[A-Za-z0-9!#$&^_.+-]+$', description: 'Media type the client will send (signed into the upload URL).' }),
      size: Type.Integer({ minimum: 1, maximum: maxBytes, description: `Exact number of bytes that will be uploaded (at most ${maxBytes}).` }),
    },
    { title: 'UploadRequest', additionalProperties: false },
  );
}
export type UploadRequestT = Static<ReturnType<typeof uploadRequestSchema>>;

export const UploadTicket = Type.Object(
  {
    upload_id: Type.String({ format: 'uuid' }),
    upload_url: Type.String({ description: 'Presigned URL: send the bytes there with `upload_method` and `upload_headers`.' }),
    upload_method: Type.Literal('PUT'),
    upload_headers: Type.Record(Type.String(), Type.String(), { description: 'Headers to send with the bytes (signed).' }),
    expires_at: Type.String({ format: 'date-time', description: 'RFC 3339 UTC: the URL, and the upload id, are valid until then.' }),
  },
  { title: 'UploadTicket', additionalProperties: false },
);

// Unions list null first: with lax scalar coercion, a string branch tried first would turn null into "".
const orderFields = {
  project_id: Type.Optional(Type.Union([Type.Null(), Type.String(UUID)], { description: 'Project of the order; null (or absent) for a personal order.' })),
  order_title: Type.String({ maxLength: 1000 }),
  asset_name: Type.Optional(Type.String({ minLength: 1, maxLength: 1000, description: "Defaults to the upload's file_name." })),
  asset_last_modified_timestamp: Type.Optional(Type.String({ pattern: '^\\d{1,12}(\\.\\d{1,9})?$', description: 'Unix seconds as a string.' })),
  ordered_by: Type.Optional(Type.Union([Type.Null(), Type.String({ maxLength: 500 })])),
  tags: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 200 }), { maxItems: 200 })),
};

export const CreateOrderRequest = Type.Object(
  { upload_id: Type.String({ ...UUID, description: 'An upload of the caller whose bytes have arrived.' }), ...orderFields },
  { title: 'CreateOrderRequest', additionalProperties: false },
);
export type CreateOrderRequestT = Static<typeof CreateOrderRequest>;

/** POST /v1/orders as `multipart/form-data`: the file itself (at most 25 MiB) instead of an upload id. */
export const CreateOrderMultipartRequest = Type.Object(
  { file: Type.String({ format: 'binary', description: 'The asset (at most 25 MiB; larger files go through POST /v1/uploads).' }), ...orderFields },
  { title: 'CreateOrderMultipartRequest', additionalProperties: false },
);
export type CreateOrderMultipartRequestT = Static<typeof CreateOrderMultipartRequest>;

export const OrderResponseRequest = Type.Object(
  {
    message: Type.String({ minLength: 1, maxLength: 10000, description: 'The explanation for the reviewer.' }),
    upload_ids: Type.Optional(Type.Array(Type.String(UUID), { maxItems: 20, description: 'Uploads of evidence (layered files, time-lapses).' })),
  },
  { title: 'OrderResponseRequest', additionalProperties: false },
);
export type OrderResponseRequestT = Static<typeof OrderResponseRequest>;

export const OrderPathParams = Type.Object({
  order_id: Type.String({ minLength: 1, maxLength: 200, description: 'The order id.' }),
});
