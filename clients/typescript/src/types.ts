/** Names for the generated schema types (src/generated/openapi.ts), as integrators use them. */
import type { components, operations } from './generated/openapi.js';

type Schemas = components['schemas'];
export type Order = Schemas['Order'];
export type OrderPreview = Schemas['OrderPreview'];
export type OrdersPage = Schemas['GetOrdersResponse'];
export type OrderStats = Schemas['OrderStats'];
export type OrderHistory = Schemas['OrderHistory'];
export type OrderHistoryEvent = Schemas['OrderHistoryEvent'];
export type Certificate = Schemas['Certificate'];
export type PublicCertificate = Schemas['PublicCertificate'];
export type Project = Schemas['Project'];
export type OrganizationMembers = Schemas['OrganizationMembers'];
export type ValidationError = Schemas['ValidationError'];
export type WebhookEndpoint = Schemas['WebhookEndpoint'];
export type WebhookEndpointWithSecret = Schemas['WebhookEndpointWithSecret'];
export type WebhookEventType = Schemas['WebhookEventType'];
export type WebhookDelivery = Schemas['WebhookDelivery'];
export type WebhookDeliveryPage = Schemas['WebhookDeliveryPage'];
export type UploadTicket = operations['create_upload_v1_uploads_post']['responses'][201]['content']['application/json'];
export type OrderState = Order['order_state'];
export type { components, operations, paths } from './generated/openapi.js';
