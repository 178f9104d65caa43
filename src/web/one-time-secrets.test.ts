import assert from 'node:assert/strict';
import { it } from 'node:test';
import { sql } from 'kysely';
import { describeOnEachDatabase } from '../../test/helpers/database.js';
import { OneTimeSecrets } from './one-time-secrets.js';

describeOnEachDatabase('one-time secrets', (getDb) => {
  it('a ticket gives its value once, only to its owner and purpose, only before it expires', async () => {
    let now = Date.parse('2026-01-01T00:00:00Z');
    const store = new OneTimeSecrets<{ secret: string }>({ db: getDb().db, purpose: 'credential', ttlMs: 100, now: () => now });
    const ticket = await store.put('session-a', { secret: 'cd_secret_value' });
    assert.match(ticket, /^[A-Za-z0-9_-]{32}$/);
    assert.equal(await store.take('session-b', ticket), undefined, 'another session gets nothing');
    const otherPurpose = new OneTimeSecrets<{ secret: string }>({ db: getDb().db, purpose: 'webhook', now: () => now });
    assert.equal(await otherPurpose.take('session-a', ticket), undefined, 'another purpose gets nothing');
    assert.deepEqual(await store.take('session-a', ticket), { secret: 'cd_secret_value' });
    assert.equal(await store.take('session-a', ticket), undefined, 'a second look gets nothing');
    const late = await store.put('session-a', { secret: 'late' });
    now += 100;
    assert.equal(await store.take('session-a', late), undefined, 'expired');
    assert.equal(await store.take('session-a', 'not a ticket'), undefined);
  });

  it('is shared by two stores on one database (two instances), stores no readable secret, and sweeps expired rows', async () => {
    const db = getDb().db;
    let now = Date.parse('2026-01-02T00:00:00Z');
    const here = new OneTimeSecrets<{ secret: string }>({ db, purpose: 'credential', ttlMs: 1000, now: () => now });
    const there = new OneTimeSecrets<{ secret: string }>({ db, purpose: 'credential', ttlMs: 1000, now: () => now });
    const ticket = await here.put('owner', { secret: 'cd_very_secret_0123456789' });
    const rows = await sql<{ ticket_hash: string; sealed: string }>`SELECT ticket_hash, sealed FROM one_time_secrets`.execute(db);
    const stored = JSON.stringify(rows.rows);
    assert.ok(!stored.includes('cd_very_secret'), 'the secret is not stored in the clear');
    assert.ok(!stored.includes(ticket), 'nor is the ticket');
    // Two instances take the same ticket at once: exactly one shows it.
    const both = await Promise.all([there.take('owner', ticket), here.take('owner', ticket)]);
    assert.deepEqual(both.filter(Boolean), [{ secret: 'cd_very_secret_0123456789' }]);
    await here.put('owner', { secret: 'never shown' });
    now += 1000;
    await here.put('owner', { secret: 'next' });
    const left = await sql<{ n: number }>`SELECT count(*)::int AS n FROM one_time_secrets`.execute(db);
    assert.equal(left.rows[0]!.n, 1, 'the expired, unshown ticket was swept by the next put');
  });
});
