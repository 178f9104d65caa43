import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { it } from 'node:test';
import { SCOPES } from '../../contract/schemas.js';
import type { DatabaseHandle } from '../../storage/database.js';
import { describeOnEachDatabase } from '../../../test/helpers/database.js';
import {
  ApiClientError,
  createApiClient,
  findApiClient,
  listApiClients,
  revokeApiClient,
  touchApiClientLastUsed,
  verifyClientSecret,
} from './index.js';

async function orgWithUser(handle: DatabaseHandle): Promise<{ organizationId: string; userId: string }> {
  const organizationId = randomUUID();
  const userId = randomUUID();
  await handle.db.insertInto('organizations').values({ id: organizationId, name: 'Org' }).execute();
  const email = `${userId}@example.test`;
  await handle.db.insertInto('users').values({ id: userId, organization_id: organizationId, email, email_key: email, username: 'U' }).execute();
  return { organizationId, userId };
}

describeOnEachDatabase('API clients', (getDb) => {

  it('creates a client whose secret is returned once and stored only as a hash', async () => {
    const { organizationId, userId } = await orgWithUser(getDb());
    const { client, clientSecret } = await createApiClient(getDb().db, { organizationId, userId, name: ' CI ', scopes: [SCOPES.read, SCOPES.read] });
    assert.match(client.clientId, /^cd_/);
    assert.match(clientSecret, /^cds_[A-Za-z0-9_-]{43}$/, '256 random bits');
    assert.equal(client.name, 'CI');
    assert.deepEqual(client.scopes, [SCOPES.read]);
    assert.equal(client.lastUsedAt, null);
    const row = await getDb().db.selectFrom('api_clients').select('secret_hash').where('client_id', '=', client.clientId).executeTakeFirstOrThrow();
    assert.ok(!row.secret_hash.includes(clientSecret));
    assert.ok(verifyClientSecret(clientSecret, row.secret_hash));
    assert.deepEqual(await findApiClient(getDb().db, client.clientId), client);
  });

  it('refuses unknown or no scopes, and a user of another organization', async () => {
    const a = await orgWithUser(getDb());
    const b = await orgWithUser(getDb());
    await assert.rejects(createApiClient(getDb().db, { ...a, name: 'x', scopes: [] }), ApiClientError);
    await assert.rejects(createApiClient(getDb().db, { ...a, name: 'x', scopes: ['admin'] }), /unknown scope: admin/);
    await assert.rejects(createApiClient(getDb().db, { organizationId: a.organizationId, userId: b.userId, name: 'x', scopes: [SCOPES.read] }), ApiClientError);
    await assert.rejects(createApiClient(getDb().db, { ...a, name: 'n'.repeat(201), scopes: [SCOPES.read] }), ApiClientError);
  });

  it('lists, revokes within the organization only, and records last use', async () => {
    const a = await orgWithUser(getDb());
    const b = await orgWithUser(getDb());
    const one = await createApiClient(getDb().db, { ...a, name: 'one', scopes: [SCOPES.read] });
    const two = await createApiClient(getDb().db, { ...a, name: 'two', scopes: [SCOPES.write] });
    assert.deepEqual((await listApiClients(getDb().db, { organizationId: a.organizationId })).map((c) => c.name).sort(), ['one', 'two']);
    assert.deepEqual(await listApiClients(getDb().db, { organizationId: b.organizationId }), []);

    assert.equal(await revokeApiClient(getDb().db, one.client.clientId, b.organizationId), false, 'not from another organization');
    assert.equal(await revokeApiClient(getDb().db, one.client.clientId, a.organizationId), true);
    const revokedAt = (await findApiClient(getDb().db, one.client.clientId))!.revokedAt;
    assert.ok(revokedAt instanceof Date);
    assert.equal(await revokeApiClient(getDb().db, one.client.clientId), true);
    assert.equal((await findApiClient(getDb().db, one.client.clientId))!.revokedAt?.getTime(), revokedAt.getTime(), 'first revocation time kept');
    assert.equal(await revokeApiClient(getDb().db, 'no-such-client'), false);

    assert.deepEqual((await listApiClients(getDb().db, { organizationId: a.organizationId })).map((c) => c.name), ['two']);
    assert.equal((await listApiClients(getDb().db, { organizationId: a.organizationId, includeRevoked: true })).length, 2);
    assert.equal((await listApiClients(getDb().db, { organizationId: a.organizationId, userId: b.userId })).length, 0);

    const at = new Date('2026-03-01T12:00:00Z');
    await touchApiClientLastUsed(getDb().db, two.client.clientId, at);
    assert.equal((await findApiClient(getDb().db, two.client.clientId))!.lastUsedAt?.toISOString(), at.toISOString());
  });
});
