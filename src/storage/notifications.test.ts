import assert from 'node:assert/strict';
import { it } from 'node:test';
import { sql } from 'kysely';
import { revokeApiClient } from '../domain/api-clients/index.js';
import { enqueueJob } from '../jobs/job-queue.js';
import { describeOnEachDatabase } from '../../test/helpers/database.js';
import { seedClient } from '../../test/oauth/oauth-harness.js';
import { CLIENT_ACCESS_CHANNEL, JOBS_CHANNEL } from './notifications.js';

/** Resolves with the first `n` payloads a channel receives (or rejects after a generous deadline). */
function nextPayloads(received: Array<string | null>, n: number): Promise<Array<string | null>> {
  const deadline = Date.now() + 30_000;
  return new Promise((resolve, reject) => {
    const check = () => {
      if (received.length >= n) resolve(received.slice(0, n));
      else if (Date.now() > deadline) reject(new Error(`${received.length} of ${n} notifications within 30 s`));
      else setTimeout(check, 20);
    };
    check();
  });
}

describeOnEachDatabase('database notifications', (getDb, target) => {
  it(target.name === 'postgres' ? 'tell listeners when jobs are queued (once per statement, at commit) and when a client changes' : 'are absent on embedded PGlite (one process)', async () => {
    const handle = getDb();
    if (target.name === 'pglite') {
      assert.equal(handle.notifications ?? null, null);
      return;
    }
    const notifications = handle.notifications!;
    const jobs: Array<string | null> = [];
    const clients: Array<string | null> = [];
    const stopJobs = await notifications.subscribe(JOBS_CHANNEL, (p) => jobs.push(p));
    const stopClients = await notifications.subscribe(CLIENT_ACCESS_CHANNEL, (p) => clients.push(p));
    assert.equal(notifications.listening, true);
    await handle.db.transaction().execute(async (trx) => {
      await enqueueJob(trx, 'cleanup', { a: 1 });
      await enqueueJob(trx, 'cleanup', { a: 2 });
      // Not before the commit (a worker woken now would not see the jobs): a notification sent by another
      // connection meanwhile arrives, the jobs' does not.
      await sql`SELECT pg_notify(${JOBS_CHANNEL}, 'meanwhile')`.execute(handle.db);
      assert.deepEqual(await nextPayloads(jobs, 1), ['meanwhile']);
    });
    assert.deepEqual(await nextPayloads(jobs, 2), ['meanwhile', ''], 'one notification for the two jobs, at commit');
    const client = await seedClient(handle.db, {});
    await handle.db.updateTable('api_clients').set({ last_used_at: new Date() }).where('client_id', '=', client.clientId).execute();
    await revokeApiClient(handle.db, client.clientId);
    // last_used_at is no change that matters to authentication: only the revocation is notified.
    assert.deepEqual(await nextPayloads(clients, 1), [client.clientId]);
    stopJobs();
    stopClients();
    // A handler still subscribed sees the next notifications; the unsubscribed ones do not.
    const later: Array<string | null> = [];
    const stopLater = await notifications.subscribe(CLIENT_ACCESS_CHANNEL, (p) => later.push(p));
    await enqueueJob(handle.db, 'cleanup', {});
    const other = await seedClient(handle.db, {});
    await revokeApiClient(handle.db, other.clientId);
    assert.deepEqual(await nextPayloads(later, 1), [other.clientId]);
    stopLater();
    assert.equal(jobs.length, 2, 'nothing after unsubscribing');
    assert.equal(clients.length, 1);
  });
});
