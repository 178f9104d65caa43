/**
 * The shape in which orders enter certdesk (seed files, NDJSON import, and later the write API): the
 * interface's Order fields except the per-response ones (`project`, `asset_preview_url`, `layers_info`),
 * which are derived from `project_id`, `asset_preview_key` and `layers`.
 * Optional fields take the interface's defaults.
 */
import { Type, type Static } from '@sinclair/typebox';
import { Annotation, HumanOrderState, OrderAnalysisLine } from '../../contract/schemas.js';
import { OBJECT_KEY_PATTERN } from '../../storage/object-storage/object-key.js';
import { UUID_PATTERN } from '../uuid.js';

/** RFC 3339 date-time with an explicit offset (Z or ±hh:mm). */
export const RFC3339_PATTERN = '^\\d{4}-\\d{2}-\\d{2}[Tt ]\\d{2}:\\d{2}:\\d{2}(\\.\\d{1,9})?([Zz]|[+-]\\d{2}:\\d{2})$';

/** FailedAnalysisItem as accepted on input: the interface's optional fields may be left out. */
export const FailedAnalysisItemInput = Type.Object(
  {
    type: Type.String({ maxLength: 200 }),
    name: Type.String({ maxLength: 1000 }),
    storage_path: Type.String({ maxLength: 2000 }),
    ai_likelihood: Type.Optional(Type.Number({ minimum: 0, maximum: 1 })),
    annotation_ids: Type.Optional(Type.Array(Type.String({ maxLength: 200 }), { maxItems: 1000 })),
    annotation_id: Type.Optional(Type.Union([Type.String({ maxLength: 200 }), Type.Null()])),
  },
  { additionalProperties: false },
);

const Text = (maxLength: number) => Type.String({ minLength: 1, maxLength });
const ObjectKey = Type.String({ pattern: OBJECT_KEY_PATTERN, description: 'object storage key' });

export const StoredLayerInput = Type.Object(
  { layer_name: Text(500), key: ObjectKey },
  { additionalProperties: false },
);

export const OrderInput = Type.Object(
  {
    order_id: Type.String({ minLength: 1, maxLength: 200, pattern: '^[\\x21-\\x7E]+$', description: 'printable ASCII, no spaces' }),
    username: Text(200),
    email: Type.String({ minLength: 3, maxLength: 320, pattern: '^[^\\s@]+@[^\\s@]+$' }),
    order_state: HumanOrderState,
    order_title: Type.String({ maxLength: 1000 }),
    asset_id: Text(500),
    asset_name: Text(1000),
    asset_last_modified_timestamp: Type.String({ pattern: '^\\d{1,12}(\\.\\d{1,9})?$', description: 'Unix seconds as a string' }),
    ordered_by: Type.Union([Type.String({ maxLength: 500 }), Type.Null()]),
    creation_time: Type.String({ pattern: RFC3339_PATTERN }),
    analysis_list: Type.Optional(Type.Array(OrderAnalysisLine, { maxItems: 1000 })),
    analysis_failed_items: Type.Optional(Type.Array(FailedAnalysisItemInput, { maxItems: 10000 })),
    tags: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 200 }), { maxItems: 200 })),
    confidence: Type.Optional(Type.Number({ minimum: 0, maximum: 1 })),
    remediation: Type.Optional(Type.Number({ minimum: 0, maximum: 1 })),
    annotations: Type.Optional(Type.Array(Annotation, { maxItems: 10000 })),
    reviewed_by: Type.Optional(Type.Union([Type.String({ minLength: 1, maxLength: 320 }), Type.Null()])),
    review_timestamp: Type.Optional(Type.Union([Type.String({ pattern: RFC3339_PATTERN }), Type.Null()])),
    project_id: Type.Optional(Type.Union([Type.String({ pattern: UUID_PATTERN }), Type.Null()])),
    asset_preview_key: Type.Optional(Type.Union([ObjectKey, Type.Null()])),
    layers: Type.Optional(Type.Array(StoredLayerInput, { maxItems: 1000 })),
  },
  { additionalProperties: false },
);

export type OrderInputT = Static<typeof OrderInput>;
