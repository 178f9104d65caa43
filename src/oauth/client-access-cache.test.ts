import assert from 'node:assert/strict';
import { it } from 'node:test';
import { SCOPES } from '../contract/schemas.js';
import { revokeApiClient } from '../domain/api-clients/index.js';
import { describeOnEachDatabase } from '../../test/helpers/database.js';
import { ManualClock } from '../../test/helpers/manual-clock.js';
import { seedClient } from '../../test/oauth/oauth-harness.js';
import { ClientAccessCache } from './client-access-cache.js';

describeOnEachDatabase('client access cache', (getDb) => {

  it('resolves the client and its user, holds it for the TTL, then sees a revocation', async () => {
    const client = await seedClient(getDb().db, { scopes: [SCOPES.read], isAdmin: true });
    const clock = new ManualClock();
    const cache = new ClientAccessCache(getDb().db, 100, clock.now);
    assert.equal(cache.peek(client.clientId), undefined, 'nothing before the first lookup');
    const [a, b] = await Promise.all([cache.get(client.clientId), cache.get(client.clientId)]);
    assert.equal(a, b, 'concurrent lookups share one query');
    assert.equal(a?.userId, client.userId);
    assert.equal(a?.organizationId, client.organizationId);
    assert.equal(a?.isAdmin, true);
    assert.equal(a?.revoked, false);
    assert.equal(a?.userIsMember, true);
    assert.equal(cache.peek(client.clientId), a);
    await revokeApiClient(getDb().db, client.clientId);
    clock.advance(99);
    assert.equal((await cache.get(client.clientId))?.revoked, false, 'still the cached resolution within the TTL');
    clock.advance(1);
    assert.equal(cache.peek(client.clientId), undefined);
    assert.equal((await cache.get(client.clientId))?.revoked, true);
  });

  it('keeps no answer of a lookup that an invalidation overtook, and clear() forgets every client', async () => {
    const client = await seedClient(getDb().db, { scopes: [SCOPES.read] });
    const other = await seedClient(getDb().db, { scopes: [SCOPES.read] });
    const clock = new ManualClock();
    const cache = new ClientAccessCache(getDb().db, 1000, clock.now);
    // Another instance's revocation is notified while this lookup is in flight: it may have read the row
    // before the change, so it answers its caller but is not kept.
    const inFlight = cache.get(client.clientId);
    cache.invalidate(client.clientId);
    assert.equal((await inFlight)?.clientId, client.clientId);
    assert.equal(cache.peek(client.clientId), undefined, 'not cached');
    await cache.get(client.clientId);
    await cache.get(other.clientId);
    assert.ok(cache.peek(client.clientId) && cache.peek(other.clientId));
    cache.clear();
    assert.equal(cache.peek(client.clientId), undefined);
    assert.equal(cache.peek(other.clientId), undefined);
  });

  it('does not cache unknown ids, and never holds an entry longer than 5 s', async () => {
    const cache = new ClientAccessCache(getDb().db);
    assert.equal(await cache.get('no-such-client'), undefined);
    assert.equal(cache.peek('no-such-client'), undefined);
    assert.throws(() => new ClientAccessCache(getDb().db, 5_001), RangeError);
  });
});
