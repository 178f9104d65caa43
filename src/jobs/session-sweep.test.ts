import assert from 'node:assert/strict';
import { it } from 'node:test';
import { enqueueJob } from './job-queue.js';
import { claimJobs, expireLeasesOfEndedSessions } from './job.repository.js';
import { describeOnEachDatabase } from '../../test/helpers/database.js';
import { DatabaseNotifications, LIVE_SESSION_PREFIX } from '../storage/notifications.js';

// A killed instance's jobs are taken over once PostgreSQL drops its session, not a lease later. PGlite is one
// process with no listening session (asserted in storage/notifications.test.ts): leases only, tested elsewhere.
describeOnEachDatabase('jobs of a process whose database session ended', (getDb, target) => {
  if (target.name === 'postgres') it('are released at once to another instance; a live session and a claim without one keep their lease', async () => {
    const handle = getDb();
    const url = handle.pgPool!.options.connectionString!;
    const listeners = [new DatabaseNotifications(url), new DatabaseNotifications(url)];
    try {
      const [dying, survivor] = listeners as [DatabaseNotifications, DatabaseNotifications];
      for (const l of listeners) await l.subscribe('certdesk_session_sweep_test', () => undefined);
      assert.ok(dying.liveSession?.startsWith(LIVE_SESSION_PREFIX));
      assert.notEqual(dying.liveSession, survivor.liveSession);
      const kind = `sweep-${Date.now()}`;
      for (let i = 0; i < 3; i++) await enqueueJob(handle.db, kind, { i });
      const hour = 3_600_000;
      const [ofDying] = await claimJobs(handle.db, 'dying', [kind], 1, hour, dying.liveSession);
      const [ofSurvivor] = await claimJobs(handle.db, 'survivor', [kind], 1, hour, survivor.liveSession);
      const [withoutSession] = await claimJobs(handle.db, 'no-session', [kind], 1, hour, null);
      assert.ok(ofDying && ofSurvivor && withoutSession);
      assert.deepEqual(await expireLeasesOfEndedSessions(handle.db, survivor.liveSession!), [], 'every session is alive');
      assert.deepEqual(await claimJobs(handle.db, 'survivor', [kind], 3, hour, survivor.liveSession), [], 'nothing to take over yet');

      await dying.close(); // as a killed process: its socket closes, PostgreSQL ends the session
      // The session's end is asynchronous on the server: it is gone once pg_stat_activity stops listing it.
      let ended: number[] = [];
      for (const deadline = Date.now() + 30_000; ended.length === 0 && Date.now() < deadline; ) {
        ended = await expireLeasesOfEndedSessions(handle.db, survivor.liveSession!);
        if (ended.length === 0) await new Promise((r) => setTimeout(r, 20));
      }
      assert.deepEqual(ended, [Number(ofDying.id)], 'only the dead session’s job');
      const taken = await claimJobs(handle.db, 'survivor', [kind], 3, hour, survivor.liveSession);
      assert.deepEqual(taken.map((j) => [Number(j.id), j.attempts]), [[Number(ofDying.id), 2]], 'claimed again at once, as a new attempt');

      // Where this process's own session is not listed (a pooler renaming sessions), nothing is ended: the
      // survivor's job, claimed under a session that then ends, keeps its lease for such a sweeper.
      await survivor.close();
      assert.deepEqual(await expireLeasesOfEndedSessions(handle.db, `${LIVE_SESSION_PREFIX}not-listed`), []);
      const held = await handle.db.selectFrom('jobs').select(['id', 'locked_by']).where('kind', '=', kind).where('state', '=', 'running').orderBy('id').execute();
      assert.deepEqual(held.map((j) => j.locked_by).sort(), ['no-session', 'survivor', 'survivor']);
    } finally {
      for (const l of listeners) await l.close();
    }
  });
});
