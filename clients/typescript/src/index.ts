/**
 * @certdesk/client: the typed client of the certdesk API (Node 20 and browsers; fetch only: nothing
 * here may import a Node module, the command-line client lives in src/cli/).
 */
export { Certdesk, type CertdeskOptions, type CreateOrderParams } from './client.js';
export { OrderList, type ListOrdersParams, type OrdersJsonPage } from './orders-list.js';
export { DeliveryList, type CreateWebhookEndpointParams, type UpdateWebhookEndpointParams, type ListDeliveriesParams } from './webhook-endpoints.js';
export { verifyWebhook, WebhookVerificationError, type WebhookEvent, type VerifyWebhookOptions } from './webhook.js';
export { verifyCertificate, CERTIFICATE_TYPE, type CertificateClaims, type VerifyCertificateOptions, type VerifiedCertificate } from './certificate.js';
export * from './tlog/index.js';
export { LogResource } from './log-resource.js';
export {
  CertdeskError,
  BadRequestError,
  AuthenticationError,
  PermissionDeniedError,
  NotFoundError,
  ConflictError,
  GoneError,
  PayloadTooLargeError,
  UnprocessableEntityError,
  RateLimitError,
  InternalServerError,
  ServiceUnavailableError,
  CertdeskConnectionError,
  CertdeskTimeoutError,
} from './errors.js';
export { type RetryPolicy } from './retry.js';
export {
  CERTDESK_ASSERTION_LABEL,
  interpretManifestStore,
  readContentCredentials,
  readerSettings,
  sniffMediaType,
  assertionDisagreement,
  certdeskAssertionOf,
  isNoManifestError,
  type CertdeskAssertion,
  type ContentCredentialsReading,
  type ManifestSigner,
  type ValidationEntry,
  type C2paReaderClass,
} from './content-credentials.js';
export type * from './types.js';
