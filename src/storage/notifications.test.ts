import assert from 'node:assert/strict';
import { it } from 'node:test';
import { sql } from 'kysely';
import { revokeApiClient } from '../domain/api-clients/index.js';
import { enqueueJob } from '../jobs/job-queue.js';
import { eventually } from '../../test/helpers/certificates.js';
import { describeOnEachDatabase } from '../../test/helpers/database.js';
import { ManualClock } from '../../test/helpers/manual-clock.js';
import { seedClient } from '../../test/oauth/oauth-harness.js';
import { CLIENT_ACCESS_CHANNEL, DatabaseNotifications, JOBS_CHANNEL } from './notifications.js';

/** The channel of migration 0011's trigger (the public certificate cache's). */
const CERTIFICATES_CHANNEL = 'certdesk_certificate_changed';

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

  // PGlite has no listening connection to offer (asserted above): the heartbeat is PostgreSQL's alone.
  if (target.name === 'postgres') {
    it('deliver committed changes only, are healthy only while a heartbeat sent after the LISTEN is recent, and recover from a killed connection', async () => {
      const handle = getDb();
      const clock = new ManualClock();
      // Its own name, so that only its connection is killed below.
      const applicationName = `certdesk-notifications-test-${process.pid}`;
      const notifications = new DatabaseNotifications(handle.pgPool!.options.connectionString!, { clock: clock.now, heartbeatMs: 20, livenessMs: 1000, retryMs: 50, applicationName });
      const errors: unknown[] = [];
      notifications.onError = (err) => errors.push(err);
      const changes: string[] = [];
      let resets = 0;
      const query = (text: string, values: unknown[] = []) => handle.pgPool!.query(text, values);
      try {
        assert.equal(notifications.isHealthy(clock.now(), CERTIFICATES_CHANNEL), false, 'not before it listens');
        const stop = await notifications.subscribe(CERTIFICATES_CHANNEL, (payload) => (payload === null ? resets++ : changes.push(payload)));
        assert.equal(notifications.listening, true);
        assert.equal(notifications.confirmedAt, Number.NEGATIVE_INFINITY, 'no heartbeat while nobody needs one');
        assert.equal(notifications.isHealthy(clock.now(), CERTIFICATES_CHANNEL), false);
        const release = notifications.requireHeartbeat();
        await eventually(async () => notifications.isHealthy(clock.now(), CERTIFICATES_CHANNEL), Boolean, 'the first heartbeat');
        assert.equal(notifications.confirmedAt, clock.now(), 'the heartbeat is timed on the injected clock');

        // A channel subscribed later is trusted only after a heartbeat sent after its own LISTEN.
        const jobs: Array<string | null> = [];
        const stopJobs = await notifications.subscribe(JOBS_CHANNEL, (p) => jobs.push(p));
        await eventually(async () => notifications.isHealthy(clock.now(), JOBS_CHANNEL), Boolean, 'a heartbeat after the later LISTEN');
        stopJobs();

        // A rolled-back NOTIFY is never delivered; a committed one is.
        const client = await handle.pgPool!.connect();
        try {
          await client.query('BEGIN');
          await client.query('SELECT pg_notify($1, $2)', [CERTIFICATES_CHANNEL, 'rolled-back']);
          await client.query('ROLLBACK');
        } finally {
          client.release();
        }
        await query('SELECT pg_notify($1, $2)', [CERTIFICATES_CHANNEL, 'committed']);
        await eventually(async () => changes.slice(), (c) => c.includes('committed'), 'the committed notification');
        assert.deepEqual(changes, ['committed']);
        assert.equal(resets, 0, 'no reset while the first connection lasts');

        // The heartbeat's bound, with time moved by hand.
        clock.advance(1001);
        assert.equal(notifications.isHealthy(clock.now(), CERTIFICATES_CHANNEL), false, 'a heartbeat older than the liveness bound is not trusted');
        await eventually(async () => notifications.isHealthy(clock.now(), CERTIFICATES_CHANNEL), Boolean, 'a heartbeat sent after the clock moved');

        // The connection is killed: unhealthy and reset at once, then back by itself (and reset again).
        const killed = await query('SELECT pg_terminate_backend(pid, 30000) AS ok FROM pg_stat_activity WHERE application_name = $1 AND datname = current_database()', [applicationName]);
        assert.equal(killed.rowCount, 1);
        await eventually(async () => resets, (n) => n >= 1, 'the reset after the connection was lost');
        assert.ok(errors.length >= 1, 'the loss is reported (logged by the application)');
        await eventually(async () => notifications.isHealthy(clock.now(), CERTIFICATES_CHANNEL) && resets, (n) => n !== false && n >= 2, 'the new connection, trusted again');
        await query('SELECT pg_notify($1, $2)', [CERTIFICATES_CHANNEL, 'after the loss']);
        await eventually(async () => changes.slice(), (c) => c.includes('after the loss'), 'a notification on the new connection');
        release();
        stop();
      } finally {
        await notifications.close();
      }
      assert.equal(notifications.isHealthy(clock.now(), CERTIFICATES_CHANNEL), false, 'closed: never trusted');
    });
  }
});
