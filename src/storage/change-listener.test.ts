/**
 * The LISTEN connection behind the public certificate cache, on a real PostgreSQL server (PGlite offers no
 * such connection, so the cache does not use one there): it delivers committed changes, says when it is
 * not to be trusted, and after losing its connection resets (forget everything) and comes back by itself.
 * Runs when TEST_DATABASE_URL is set.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { eventually } from '../../test/helpers/certificates.js';
import { openTestPostgres } from '../../test/helpers/database.js';
import { ManualClock } from '../../test/helpers/manual-clock.js';
import { ChangeListener } from './change-listener.js';
import type { DatabaseHandle } from './database.js';

const CHANNEL = 'certdesk_certificate_changed';

if (process.env.TEST_DATABASE_URL) {
  describe('change listener on postgres', () => {
    let handle: DatabaseHandle;
    let url: string;
    before(async () => {
      handle = await openTestPostgres(process.env.TEST_DATABASE_URL!);
      url = handle.pgPool!.options.connectionString!;
    });
    after(async () => {
      await handle?.close();
    });

    async function query(text: string, values: unknown[] = []): Promise<pg.QueryResult> {
      return handle.pgPool!.query(text, values);
    }

    it('delivers committed changes only, is healthy only while its heartbeat is recent, and recovers from a lost connection', async () => {
      const clock = new ManualClock();
      const changes: string[] = [];
      let resets = 0;
      const errors: Error[] = [];
      const listener = new ChangeListener({
        connectionString: url,
        channel: CHANNEL,
        clock: clock.now,
        onChange: (payload) => changes.push(payload),
        onReset: () => resets++,
        onError: (err) => errors.push(err),
        heartbeatMs: 20,
        livenessMs: 1000,
        retryMs: 50,
      });
      try {
        assert.equal(listener.isHealthy(clock.now()), false, 'not before it listens');
        listener.start();
        await eventually(async () => listener.isHealthy(clock.now()), Boolean, 'the first heartbeat');
        assert.equal(resets, 1, 'a (re)connection forgets what may have been missed');

        // A rolled-back NOTIFY is never delivered; a committed one is.
        const client = await handle.pgPool!.connect();
        try {
          await client.query('BEGIN');
          await client.query('SELECT pg_notify($1, $2)', [CHANNEL, 'rolled-back']);
          await client.query('ROLLBACK');
        } finally {
          client.release();
        }
        await query('SELECT pg_notify($1, $2)', [CHANNEL, 'committed']);
        await eventually(async () => changes.slice(), (c) => c.includes('committed'), 'the committed notification');
        assert.deepEqual(changes, ['committed']);

        // The trigger of migration 0011 announces a certificate's changes: tested through the table in the
        // instances test; here the heartbeat's bound, with time moved by hand.
        clock.advance(1001);
        assert.equal(listener.isHealthy(clock.now()), false, 'a heartbeat older than the liveness bound is not trusted');
        await eventually(async () => listener.isHealthy(clock.now()), Boolean, 'a heartbeat sent after the clock moved');

        // The connection is killed: unhealthy and reset at once, then back by itself (and reset again).
        const killed = await query(
          "SELECT pg_terminate_backend(pid, 30000) AS ok FROM pg_stat_activity WHERE application_name = 'certdesk-change-listener' AND datname = current_database()",
        );
        assert.equal(killed.rowCount, 1);
        await eventually(async () => resets, (n) => n >= 2, 'the reset after the connection was lost');
        assert.ok(errors.length >= 1, 'the loss is reported (logged by the application)');
        await eventually(async () => listener.isHealthy(clock.now()) && resets, (n) => n !== false && n >= 3, 'the new connection, trusted again');
        await query('SELECT pg_notify($1, $2)', [CHANNEL, 'after the loss']);
        await eventually(async () => changes.slice(), (c) => c.includes('after the loss'), 'a notification on the new connection');
      } finally {
        await listener.close();
      }
      assert.equal(listener.isHealthy(clock.now()), false, 'closed: never trusted');
    });
  });
}
