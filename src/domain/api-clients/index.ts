/** API clients: creation (secret shown once), listing, revocation and credential checks. */
export { createApiClient, ApiClientError, type CreateApiClientInput, type CreatedApiClient } from './api-client.service.js';
export {
  findApiClient,
  listApiClients,
  revokeApiClient,
  touchApiClientLastUsed,
  type ApiClientRecord,
  type ApiClientFilter,
} from './api-client.repository.js';
export { generateClientCredentials, hashClientSecret, verifyClientSecret } from './client-credentials.js';
