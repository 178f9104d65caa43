/**
 * The interface's resources as JSON Schemas (TypeBox). One source of truth: the HTTP layer validates and
 * serializes with these, the OpenAPI document is generated from them, and the TypeScript types below are
 * derived from them. Names ($id) are the interface's component names.
 */
import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { certificateComponentSchemas } from './certificate-schemas.js';
import { webhookComponentSchemas } from './webhook-schemas.js';

const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);

export const ORDER_STATES = [
  'In Progress',
  'Human Certified',
  'Action Required',
  'Reviewed',
  'Failed',
  'Unsupported File',
] as const;
export type HumanOrderStateValue = (typeof ORDER_STATES)[number];

/** OrderStats counter of each state. */
export const STATE_COUNTERS: Record<HumanOrderStateValue, keyof Static<typeof OrderStats>> = {
  'In Progress': 'total_in_progress',
  'Human Certified': 'total_certified',
  'Action Required': 'total_action_required',
  Reviewed: 'total_reviewed',
  Failed: 'total_failed',
  'Unsupported File': 'total_unsupported',
};

export const PROJECT_ROLES = ['admin', 'editor', 'viewer'] as const;
export type ProjectRoleValue = (typeof PROJECT_ROLES)[number];

export const SCOPES = {
  read: 'enterprise-api-access/read',
  write: 'enterprise-api-access/write',
} as const;
export const ALL_SCOPES = [SCOPES.read, SCOPES.write] as const;

/** The literal project_id filters of GET /v1/orders. */
export const ALL_PROJECTS = 'All Projects';
export const PERSONAL_CERTIFICATES = 'Personal Certificates';

/** A plain string enum (not a union of literals): a clear `enum` in OpenAPI and in validation messages. */
export const HumanOrderState = Type.Unsafe<HumanOrderStateValue>({
  type: 'string',
  enum: [...ORDER_STATES],
  $id: 'HumanOrderState',
  title: 'HumanOrderState',
  description: 'State of a certificate order.',
});

export const OrderAnalysisLine = Type.Object(
  {
    analysis_type: Type.String(),
    analysis_passed: Type.Boolean(),
  },
  { $id: 'OrderAnalysisLine', title: 'OrderAnalysisLine', additionalProperties: false },
);

export const FailedAnalysisItem = Type.Object(
  {
    type: Type.String(),
    name: Type.String(),
    storage_path: Type.String({ description: 'Path of the item in object storage.' }),
    ai_likelihood: Type.Number({ default: 0, description: 'AI score.' }),
    annotation_ids: Type.Array(Type.String(), { default: [] }),
    annotation_id: Nullable(Type.String()),
  },
  { $id: 'FailedAnalysisItem', title: 'FailedAnalysisItem', additionalProperties: false },
);

export const AnnotationBody = Type.Object(
  { value: Type.String(), id: Type.String(), annotation: Type.String() },
  { $id: 'AnnotationBody', title: 'AnnotationBody', additionalProperties: false },
);

export const HumanAnnotationProperties = Type.Object(
  {
    needs_remediation: Type.Optional(Nullable(Type.Boolean())),
    ai_likelihood: Type.Optional(Nullable(Type.Number())),
  },
  { $id: 'HumanAnnotationProperties', title: 'HumanAnnotationProperties', additionalProperties: false },
);

export const HumanAnnotationSelectorType = Type.Unsafe<'RECTANGLE' | 'POLYGON'>({
  type: 'string',
  enum: ['RECTANGLE', 'POLYGON'],
  $id: 'HumanAnnotationSelectorType',
  title: 'HumanAnnotationSelectorType',
});

export const HumanAnnotationGeometryBounds = Type.Object(
  { minX: Type.Number(), minY: Type.Number(), maxX: Type.Number(), maxY: Type.Number() },
  { $id: 'HumanAnnotationGeometryBounds', title: 'HumanAnnotationGeometryBounds', additionalProperties: false },
);

export const HumanAnnotationGeometry = Type.Object(
  {
    bounds: HumanAnnotationGeometryBounds,
    x: Type.Optional(Nullable(Type.Number())),
    y: Type.Optional(Nullable(Type.Number())),
    w: Type.Optional(Nullable(Type.Number())),
    h: Type.Optional(Nullable(Type.Number())),
    points: Type.Optional(Nullable(Type.Array(Type.Array(Type.Number())))),
  },
  { $id: 'HumanAnnotationGeometry', title: 'HumanAnnotationGeometry', additionalProperties: false },
);

export const HumanAnnotationSelector = Type.Object(
  { type: HumanAnnotationSelectorType, geometry: HumanAnnotationGeometry },
  { $id: 'HumanAnnotationSelector', title: 'HumanAnnotationSelector', additionalProperties: false },
);

export const AnnotationTarget = Type.Object(
  { annotation: Type.String(), selector: HumanAnnotationSelector },
  { $id: 'AnnotationTarget', title: 'AnnotationTarget', additionalProperties: false },
);

export const Annotation = Type.Object(
  {
    id: Type.Optional(Nullable(Type.String())),
    bodies: Type.Optional(Type.Array(AnnotationBody)),
    properties: Type.Optional(HumanAnnotationProperties),
    target: Type.Optional(Nullable(AnnotationTarget)),
  },
  { $id: 'Annotation', title: 'Annotation', additionalProperties: false },
);

export const LayerInfo = Type.Object(
  { layer_name: Type.String(), layer_url: Type.String() },
  { $id: 'LayerInfo', title: 'LayerInfo', additionalProperties: false },
);

/** A project role as a plain string enum. */
const projectRole = (description: string) =>
  Type.Unsafe<ProjectRoleValue>({ type: 'string', enum: [...PROJECT_ROLES], description });

/** An RFC 3339 timestamp (UTC). */
const timestamp = (description: string) => Type.String({ format: 'date-time', description });

/** The project of an order, with the caller's role in it. */
export const OrderProject = Type.Object(
  {
    id: Type.String(),
    name: Type.String(),
    userRole: projectRole("The caller's role in the project: the membership's role, else `admin` for an organization administrator."),
  },
  { $id: 'OrderProject', title: 'OrderProject', additionalProperties: false },
);

export const Order = Type.Object(
  {
    order_id: Type.String({ description: 'Unique order identifier.' }),
    username: Type.String({ description: 'Username of the user who created the order.' }),
    email: Type.String({ description: 'E-mail of the user who created the order.' }),
    order_state: HumanOrderState,
    order_title: Type.String(),
    asset_id: Type.String(),
    asset_name: Type.String(),
    asset_last_modified_timestamp: Type.String({ description: 'Unix timestamp (seconds) as a string, as provided at order creation.' }),
    ordered_by: Nullable(Type.String()),
    creation_time: timestamp('RFC 3339 UTC timestamp of order creation.'),
    asset_preview_url: Nullable(Type.String({ description: 'Presigned, time-limited URL of a preview image.' })),
    analysis_list: Type.Array(OrderAnalysisLine, { default: [] }),
    analysis_failed_items: Type.Array(FailedAnalysisItem, { default: [] }),
    tags: Type.Array(Type.String(), { default: [] }),
    confidence: Type.Number({ default: 0, minimum: 0, maximum: 1 }),
    remediation: Type.Number({ default: 0, description: '0.0 = not set, 0.5 = not recommended, 1.0 = recommended.' }),
    annotations: Type.Array(Annotation, { default: [] }),
    project: Nullable(OrderProject),
    reviewed_by: Nullable(Type.String()),
    review_timestamp: Nullable(timestamp('RFC 3339 UTC timestamp of the review; null until reviewed.')),
    layers_info: Type.Array(LayerInfo, { default: [] }),
  },
  {
    $id: 'Order',
    title: 'Order',
    additionalProperties: false,
    // The interface marks these optional; certdesk always sends every field (docs/decisions.md), so all are required.
  },
);

export const OrderPreview = Type.Object(
  {
    order_id: Type.String(),
    order_title: Type.String(),
    creation_time: timestamp('RFC 3339 UTC timestamp of order creation.'),
    order_state: HumanOrderState,
    asset_preview_url: Nullable(Type.String()),
    project_name: Nullable(Type.String()),
    analysis_list: Type.Array(OrderAnalysisLine, { default: [] }),
    tags: Type.Array(Type.String(), { default: [] }),
  },
  { $id: 'OrderPreview', title: 'OrderPreview', additionalProperties: false },
);

export const OrderStats = Type.Object(
  {
    total_in_progress: Type.Integer({ default: 0 }),
    total_certified: Type.Integer({ default: 0 }),
    total_action_required: Type.Integer({ default: 0 }),
    total_reviewed: Type.Integer({ default: 0 }),
    total_failed: Type.Integer({ default: 0 }),
    total_unsupported: Type.Integer({ default: 0 }),
    total_orders: Type.Integer({ default: 0 }),
  },
  { $id: 'OrderStats', title: 'OrderStats', additionalProperties: false },
);

export const GetOrdersResponse = Type.Object(
  {
    order_stats: OrderStats,
    project_names: Type.Array(Type.String()),
    next_page_token: Nullable(Type.String()),
    orders: Nullable(Type.Array(Order)),
    order_previews: Nullable(Type.Array(OrderPreview)),
  },
  { $id: 'GetOrdersResponse', title: 'GetOrdersResponse', additionalProperties: false },
);

export const DetectionConfig = Type.Object(
  {
    object_flag_threshold: Type.Number(),
    weighted_confidence_threshold: Type.Number(),
    default_object_flag_threshold: Type.Number(),
    default_weighted_confidence_threshold: Type.Number(),
    org_object_flag_threshold: Type.Number(),
    org_weighted_confidence_threshold: Type.Number(),
  },
  { $id: 'DetectionConfig', title: 'DetectionConfig', additionalProperties: false },
);

export const ProjectMember = Type.Object(
  { email: Type.String(), role: projectRole('Role of the member in the project.') },
  { $id: 'ProjectMember', title: 'ProjectMember', additionalProperties: false },
);

export const Project = Type.Object(
  {
    id: Type.String(),
    name: Type.String(),
    date_created: timestamp('RFC 3339 UTC timestamp of the project\'s creation.'),
    members: Type.Array(ProjectMember),
    detection_config: DetectionConfig,
  },
  { $id: 'Project', title: 'Project', additionalProperties: false },
);

export const OrganizationMembers = Type.Object(
  { org_admins: Type.Array(Type.String()), not_org_admins: Type.Array(Type.String()) },
  { $id: 'OrganizationMembers', title: 'OrganizationMembers', additionalProperties: false },
);

export const ValidationError = Type.Object(
  {
    loc: Type.Array(Type.Union([Type.String(), Type.Integer()])),
    msg: Type.String(),
    type: Type.String(),
    input: Type.Optional(Type.Unknown()),
    ctx: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
  },
  { $id: 'ValidationError', title: 'ValidationError', required: ['loc', 'msg', 'type'] },
);

export const HTTPValidationError = Type.Object(
  { detail: Type.Array(ValidationError) },
  { $id: 'HTTPValidationError', title: 'HTTPValidationError' },
);

/** Every other error: {"detail": "<message>"}. */
export const ErrorDetail = Type.Object({ detail: Type.String() }, { $id: 'ErrorDetail', title: 'ErrorDetail' });

/** Component schemas in dependency order (register with fastify.addSchema in this order). */
export const componentSchemas: TSchema[] = [
  HumanOrderState,
  OrderAnalysisLine,
  FailedAnalysisItem,
  AnnotationBody,
  HumanAnnotationProperties,
  HumanAnnotationSelectorType,
  HumanAnnotationGeometryBounds,
  HumanAnnotationGeometry,
  HumanAnnotationSelector,
  AnnotationTarget,
  Annotation,
  LayerInfo,
  OrderProject,
  Order,
  OrderPreview,
  OrderStats,
  GetOrdersResponse,
  DetectionConfig,
  ProjectMember,
  Project,
  OrganizationMembers,
  ValidationError,
  HTTPValidationError,
  ErrorDetail,
  ...certificateComponentSchemas,
  ...webhookComponentSchemas,
];

export type OrderAnalysisLineT = Static<typeof OrderAnalysisLine>;
export type FailedAnalysisItemT = Static<typeof FailedAnalysisItem>;
export type AnnotationT = Static<typeof Annotation>;
export type LayerInfoT = Static<typeof LayerInfo>;
export type OrderProjectT = Static<typeof OrderProject>;
export type OrderT = Static<typeof Order>;
export type OrderPreviewT = Static<typeof OrderPreview>;
export type OrderStatsT = Static<typeof OrderStats>;
export type GetOrdersResponseT = Static<typeof GetOrdersResponse>;
export type DetectionConfigT = Static<typeof DetectionConfig>;
export type ProjectT = Static<typeof Project>;
export type OrganizationMembersT = Static<typeof OrganizationMembers>;
export type ValidationErrorT = Static<typeof ValidationError>;
