/**
 * Migration 0005 on a database that already has a trail in the old shape (actor_label, reason): every row
 * gets an event id, a type, the actor as the history shows it and the client id apart, and the customer's
 * response JSON becomes a note with its evidence in `changes`. PGlite, and PostgreSQL when TEST_DATABASE_URL is set.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import pg from 'pg';
import { ACME, loadStandardFixture, temporaryObjectStorage, USERS } from '../../../test/helpers/fixtures.js';
import { openDatabase, type DatabaseHandle } from '../../storage/database.js';
import { loadMigrations, migrate, type Migration } from '../../storage/migrate.js';
import { toOrderRow } from '../orders/order-document.js';
import { upsertOrders } from '../orders/order.repository.js';
import { listOrderEvents } from './order-history.repository.js';

const HISTORY_MIGRATION = '0005';

/** An empty database (no migration applied) on each target; close() removes it. */
function emptyTargets(): Array<{ name: string; open: () => Promise<DatabaseHandle> }> {
  const targets = [{ name: 'pglite', open: () => openDatabase({ databaseUrl: null, pgliteDir: null }) }];
  const adminUrl = process.env.TEST_DATABASE_URL;
  if (adminUrl) {
    targets.push({
      name: 'postgres',
      open: async () => {
        const name = `certdesk_t_${process.pid}_${randomBytes(4).toString('hex')}`;
        const admin = new pg.Client({ connectionString: adminUrl });
        await admin.connect();
        await admin.query(`CREATE DATABASE ${name}`).finally(() => admin.end());
        const url = new URL(adminUrl);
        url.pathname = `/${name}`;
        const handle = await openDatabase({ databaseUrl: url.toString(), pgliteDir: null, poolSize: 2 });
        const close = handle.close;
        handle.close = async () => {
          await close();
          const dropper = new pg.Client({ connectionString: adminUrl });
          await dropper.connect();
          await dropper.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).finally(() => dropper.end());
        };
        return handle;
      },
    });
  }
  return targets;
}

for (const target of emptyTargets()) {
  describe(`migration ${HISTORY_MIGRATION} (order history) on ${target.name}`, () => {
    let handle: DatabaseHandle;
    let later: Migration[];
    const objects = temporaryObjectStorage();
    const clientUser = '11111111-0000-4000-8000-000000000001';
    const webUser = '11111111-0000-4000-8000-000000000002';

    before(async () => {
      handle = await target.open();
      const all = await loadMigrations();
      later = all.filter((m) => m.version >= HISTORY_MIGRATION);
      await migrate(handle, all.filter((m) => m.version < HISTORY_MIGRATION));
      await loadStandardFixture(handle, objects.storage);
      await upsertOrders(handle.db, [
        toOrderRow(ACME.id, {
          order_id: 'old-trail', username: 'Editor', email: USERS.editor.email, order_state: 'In Progress', order_title: 'old', asset_id: 'a',
          asset_name: 'a.png', asset_last_modified_timestamp: '1', ordered_by: null, creation_time: '2026-01-01T00:00:00Z', project_id: null,
        }),
      ]);
      // The trail as the code before 0005 wrote it: creation through an API client, analysis moves, a response from the web.
      const row = (id: number, from: string | null, to: string, kind: string, actorId: string, label: string | null, reason: string | null) =>
        sql`INSERT INTO order_events (order_id, organization_id, from_state, to_state, actor_kind, actor_id, actor_label, reason, occurred_at)
            VALUES ('old-trail', ${ACME.id}::uuid, ${from}, ${to}, ${kind}, ${actorId}, ${label}, ${reason}, ${`2026-01-01T00:00:0${id}.123456Z`}::timestamptz)`.execute(handle.db);
      await row(1, null, 'In Progress', 'user', clientUser, `${USERS.editor.email} (client editor-client)`, 'created');
      await row(2, 'In Progress', 'Action Required', 'system', 'analysis', null, 'flagged by metadata');
      await row(3, 'Action Required', 'In Progress', 'user', webUser, USERS.editor.email, JSON.stringify({ response: 'Painted <b>by hand</b>', upload_ids: ['u-1', 'u-2'] }));
      await row(4, 'In Progress', 'Action Required', 'system', 'analysis', null, 'flagged again');
      await row(5, 'Action Required', 'In Progress', 'user', webUser, USERS.editor.email, JSON.stringify({ response: 'no files', upload_ids: [] }));
      await row(6, 'In Progress', 'Failed', 'system', 'analysis', null, 'layer_check failed: Error: truncated');
      await migrate(handle, [...(await loadMigrations()).filter((m) => m.version < HISTORY_MIGRATION), ...later]);
    });
    after(async () => {
      await handle?.close();
      rmSync(objects.dir, { recursive: true, force: true });
    });

    it('gives every old row its type, actor, client id, note and changes', async () => {
      const events = await listOrderEvents(handle.db, 'old-trail');
      assert.deepEqual(
        events.map((e) => [e.type, e.from_state, e.to_state, e.actor, e.actor_client_id, e.note, e.changes]),
        [
          ['created', null, 'In Progress', USERS.editor.email, 'editor-client', null, null],
          ['state_changed', 'In Progress', 'Action Required', 'certdesk:analysis', null, 'flagged by metadata', null],
          ['responded', 'Action Required', 'In Progress', USERS.editor.email, null, 'Painted <b>by hand</b>', { upload_ids: { before: [], after: ['u-1', 'u-2'] } }],
          ['state_changed', 'In Progress', 'Action Required', 'certdesk:analysis', null, 'flagged again', null],
          ['responded', 'Action Required', 'In Progress', USERS.editor.email, null, 'no files', null],
          ['state_changed', 'In Progress', 'Failed', 'certdesk:analysis', null, 'layer_check failed: Error: truncated', null],
        ],
      );
      assert.deepEqual(events.map((e) => e.actor_id), [clientUser, 'analysis', webUser, 'analysis', webUser, 'analysis']);
    });

    it('gives every old row a distinct UUID event id and keeps the instants', async () => {
      const events = await listOrderEvents(handle.db, 'old-trail');
      assert.equal(new Set(events.map((e) => e.event_id)).size, events.length);
      for (const e of events) assert.match(e.event_id, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      const micros = await sql<{ at: string }>`SELECT to_char(occurred_at AT TIME ZONE 'UTC', 'SS.US') AS at FROM order_events WHERE order_id = 'old-trail' ORDER BY id`.execute(handle.db);
      assert.deepEqual(micros.rows.map((r) => r.at), ['01.123456', '02.123456', '03.123456', '04.123456', '05.123456', '06.123456']);
    });

    it('refuses rows that break the new rules: unknown type, an action with a state, a move without one', async () => {
      const insert = (type: string, from: string | null, to: string | null) =>
        sql`INSERT INTO order_events (order_id, organization_id, type, from_state, to_state, actor_kind, actor_id, actor, occurred_at)
            VALUES ('old-trail', ${ACME.id}::uuid, ${type}, ${from}, ${to}, 'system', 'test', 'certdesk:test', now())`.execute(handle.db);
      await assert.rejects(insert('deleted', null, null), /order_events_type_check/);
      await assert.rejects(insert('claimed', 'In Progress', 'In Progress'), /order_events_move_check/);
      await assert.rejects(insert('state_changed', null, 'Failed'), /order_events_move_check/);
      await insert('claimed', null, null);
    });
  });
}
