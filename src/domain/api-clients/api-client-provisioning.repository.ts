/** Provisioned API clients (seed files): upserted by client_id with a secret the file names. */
import type { Executor } from '../../storage/database.js';
import { hashClientSecret, verifyClientSecret } from './client-credentials.js';

export interface ProvisionedClient {
  client_id: string;
  client_secret: string;
  organization_id: string;
  user_id: string;
  name: string;
  scopes: string[];
}

export class ClientConflictError extends Error {
  override name = 'ClientConflictError';
}

/** Inserts or updates a client by id; returns true when something changed. A revoked client stays revoked. */
export async function upsertProvisionedClient(db: Executor, client: ProvisionedClient): Promise<boolean> {
  const existing = await db.selectFrom('api_clients').selectAll().where('client_id', '=', client.client_id).executeTakeFirst();
  if (existing && existing.organization_id !== client.organization_id) {
    throw new ClientConflictError(`client ${client.client_id} already belongs to another organization`);
  }
  if (!existing) {
    await db
      .insertInto('api_clients')
      .values({
        client_id: client.client_id,
        organization_id: client.organization_id,
        user_id: client.user_id,
        name: client.name,
        secret_hash: hashClientSecret(client.client_secret),
        scopes: client.scopes,
      })
      .execute();
    return true;
  }
  const same =
    existing.user_id === client.user_id &&
    existing.name === client.name &&
    verifyClientSecret(client.client_secret, existing.secret_hash) &&
    existing.scopes.length === client.scopes.length &&
    existing.scopes.every((s, i) => s === client.scopes[i]);
  if (!same) {
    await db
      .updateTable('api_clients')
      .set({ user_id: client.user_id, name: client.name, secret_hash: hashClientSecret(client.client_secret), scopes: client.scopes })
      .where('client_id', '=', client.client_id)
      .execute();
  }
  return !same;
}
