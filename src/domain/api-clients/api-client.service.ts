/**
 * Rules for API clients, shared by the web application and the CLI: creation returns the secret exactly
 * once (only its hash is stored); revocation is scoped to the caller's organization.
 */
import { ALL_SCOPES } from '../../contract/schemas.js';
import type { Executor } from '../../storage/database.js';
import { findUserById } from '../users/user.repository.js';
import { generateClientCredentials, hashClientSecret } from './client-credentials.js';
import { insertApiClient, type ApiClientRecord } from './api-client.repository.js';

export class ApiClientError extends Error {
  override name = 'ApiClientError';
}

export interface CreateApiClientInput {
  organizationId: string;
  /** The user the client acts as; must belong to the organization. */
  userId: string;
  name: string;
  scopes: readonly string[];
}

export interface CreatedApiClient {
  client: ApiClientRecord;
  /** Shown to the user once; never stored or retrievable again. */
  clientSecret: string;
}

const KNOWN_SCOPES: ReadonlySet<string> = new Set(ALL_SCOPES);

/**
 * Creates a client acting as `userId` with the given scopes and returns its secret once.
 *
 * @example
 * const { client, clientSecret } = await createApiClient(db, {
 *   organizationId, userId, name: 'CI pipeline', scopes: ['enterprise-api-access/read'],
 * });
 */
export async function createApiClient(db: Executor, input: CreateApiClientInput): Promise<CreatedApiClient> {
  const name = input.name.trim();
  if (name.length > 200) throw new ApiClientError('client name must be at most 200 characters');
  const scopes = [...new Set(input.scopes)];
  if (scopes.length === 0) throw new ApiClientError('a client needs at least one scope');
  const unknown = scopes.filter((s) => !KNOWN_SCOPES.has(s));
  if (unknown.length) throw new ApiClientError(`unknown scope: ${unknown.join(', ')} (known: ${ALL_SCOPES.join(', ')})`);
  const user = await findUserById(db, input.userId);
  if (!user || user.organization_id !== input.organizationId) {
    throw new ApiClientError('the user does not belong to this organization');
  }
  const { clientId, clientSecret } = generateClientCredentials();
  const client = await insertApiClient(db, {
    clientId,
    organizationId: input.organizationId,
    userId: input.userId,
    name,
    secretHash: hashClientSecret(clientSecret),
    scopes,
  });
  return { client, clientSecret };
}
