/**
 * The lifecycle: the allowed moves exactly, and moves carried out under concurrency on a real database
 * (PGlite, and PostgreSQL when TEST_DATABASE_URL is set): every move recorded, illegal ones refused, the
 * per-state counters equal to a recount afterwards.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setTimeout as delay } from 'node:timers/promises';
import fc from 'fast-check';
import { sql } from 'kysely';
import { ORDER_STATES, type HumanOrderStateValue } from '../../contract/schemas.js';
import { databaseTargets } from '../../../test/helpers/database.js';
import { ACME, loadStandardFixture, USERS, removeTemporaryObjectStorages } from '../../../test/helpers/fixtures.js';
import type { DatabaseHandle } from '../../storage/database.js';
import { ManualClock } from '../time/clock.js';
import { canMove, IllegalTransitionError, isFinal } from './lifecycle.js';
import { toOrderRow } from './order-document.js';
import { listOrderEvents } from './order-lifecycle.repository.js';
import { changeOrder, changeOrderIn, createOrder, OrderNotFoundError } from './order-lifecycle.service.js';
import { recountOrderCounters, upsertOrders } from './order.repository.js';
import { checkDocuments } from './order-documents.service.js';
import { principalOf } from '../../../test/helpers/orders-oracle.js';
import { loadConfig } from '../../config.js';
import type { Principal } from '../principal.js';
import { listOrders, listOrdersBody } from './order-listing.service.js';
import { renderOrdersResponse } from './order-response.js';
import { createOrdersContext, type OrdersContext } from './orders-context.js';

/** The signing time of the listings' presigned URLs. */
const NOW = 1_900_000_000;

const ALLOWED = new Set([
  'In Progress>Unsupported File',
  'In Progress>Action Required',
  'In Progress>Human Certified',
  'In Progress>Reviewed',
  'In Progress>Failed',
  'Action Required>In Progress',
]);

describe('lifecycle rules', () => {
  it('allows exactly the moves of the lifecycle diagram', () => {
    for (const from of ORDER_STATES) {
      for (const to of ORDER_STATES) assert.equal(canMove(from, to), ALLOWED.has(`${from}>${to}`), `${from} → ${to}`);
    }
    assert.deepEqual(ORDER_STATES.filter(isFinal).sort(), ['Failed', 'Human Certified', 'Reviewed', 'Unsupported File']);
  });
});

for (const target of databaseTargets()) {
  describe(`lifecycle moves on ${target.name}`, () => {
    let handle: DatabaseHandle;
    const clock = new ManualClock();
    const actor = { kind: 'user' as const, userId: '00000000-0000-4000-8000-00000000abcd', email: USERS.admin.email, clientId: null };
    let orders: OrdersContext;
    let admin: Principal;
    before(async () => {
      handle = await target.open();
      await loadStandardFixture(handle);
      orders = await createOrdersContext(handle.db, loadConfig({ PUBLIC_BASE_URL: 'http://certdesk.test' }));
      admin = await principalOf(handle, 'admin');
    });
    after(() => handle.close());

    async function freshOrders(prefix: string, n: number): Promise<string[]> {
      const ids = Array.from({ length: n }, (_, i) => `${prefix}-${i}`);
      await upsertOrders(
        handle.db,
        ids.map((id, i) =>
          toOrderRow(ACME.id, {
            order_id: id, username: 'Editor', email: USERS.editor.email, order_state: 'In Progress', order_title: id, asset_id: id,
            asset_name: `${id}.png`, asset_last_modified_timestamp: '1', ordered_by: null, creation_time: new Date(Date.UTC(2029, 0, 1) + i).toISOString(),
            project_id: i % 2 === 0 ? ACME.projects.zeta.id : null,
          }),
        ),
      );
      return ids;
    }

    it('records a move with who, when, from, to and why, and re-renders the documents', async () => {
      const [id] = await freshOrders('single', 1);
      await changeOrder(handle.db, clock, id!, actor, {
        to: 'Reviewed',
        reason: 'findings recorded',
        edit: (o) => {
          o.reviewed_by = USERS.admin.email;
          o.review_timestamp = clock.now().toISOString();
        },
      });
      const [event] = await listOrderEvents(handle.db, id!);
      assert.deepEqual(
        { type: event!.type, from: event!.from_state, to: event!.to_state, kind: event!.actor_kind, who: event!.actor_id, actor: event!.actor, why: event!.note, at: event!.occurred_at.toISOString() },
        { type: 'state_changed', from: 'In Progress', to: 'Reviewed', kind: 'user', who: actor.userId, actor: USERS.admin.email, why: 'findings recorded', at: clock.now().toISOString() },
      );
      // What the move changed besides the state, before and after.
      assert.deepEqual(event!.changes, {
        reviewed_by: { before: null, after: USERS.admin.email },
        review_timestamp: { before: null, after: clock.now().toISOString() },
      });
      const row = await handle.db.selectFrom('orders').select(['order_state', 'doc', 'preview_doc']).where('order_id', '=', id!).executeTakeFirstOrThrow();
      assert.equal(row.order_state, 'Reviewed');
      assert.equal(JSON.parse(row.doc).order_state, 'Reviewed');
      assert.equal(JSON.parse(row.doc).reviewed_by, USERS.admin.email);
      assert.equal(JSON.parse(row.preview_doc).order_state, 'Reviewed');
    });

    it('createOrder writes the order with its asset and its creation event in one statement', async () => {
      const row = toOrderRow(ACME.id, {
        order_id: 'created-1', username: 'Editor', email: USERS.editor.email, order_state: 'In Progress', order_title: 'c', asset_id: 'created-1',
        asset_name: 'c.png', asset_last_modified_timestamp: '1', ordered_by: null, creation_time: clock.now().toISOString(), project_id: ACME.projects.zeta.id,
      });
      await handle.db.transaction().execute((trx) => createOrder(trx, clock, row, { key: `orgs/${ACME.id}/uploads/x`, contentType: 'image/png', size: 7 }, actor));
      const stored = await handle.db.selectFrom('orders').select(['order_state', 'project_id', 'asset_key', 'asset_content_type', 'asset_size', 'doc']).where('order_id', '=', 'created-1').executeTakeFirstOrThrow();
      assert.deepEqual({ ...stored, asset_size: Number(stored.asset_size), doc: JSON.parse(stored.doc).order_title }, {
        order_state: 'In Progress', project_id: ACME.projects.zeta.id, asset_key: `orgs/${ACME.id}/uploads/x`, asset_content_type: 'image/png', asset_size: 7, doc: 'c',
      });
      const events = await listOrderEvents(handle.db, 'created-1');
      assert.deepEqual(events.map((e) => [e.from_state, e.to_state, e.type]), [[null, 'In Progress', 'created']]);
    });

    it('refuses illegal moves with 409 and changes nothing', async () => {
      const [id] = await freshOrders('illegal', 1);
      await changeOrder(handle.db, clock, id!, actor, { to: 'Failed' });
      for (const to of ORDER_STATES) {
        await assert.rejects(changeOrder(handle.db, clock, id!, actor, { to }), (e: unknown) => e instanceof IllegalTransitionError && e.statusCode === 409);
      }
      assert.equal((await listOrderEvents(handle.db, id!)).length, 1);
      await assert.rejects(changeOrder(handle.db, clock, 'no-such-order', actor, { to: 'Failed' }), OrderNotFoundError);
    });

    it('records an edit only when told its event type, and refuses an event type that does not match the move', async () => {
      const [id] = await freshOrders('edits', 1);
      await changeOrder(handle.db, clock, id!, actor, { edit: (o) => { o.confidence = 0.5; } });
      assert.equal((await listOrderEvents(handle.db, id!)).length, 0, 'an unrecorded edit is progress, not an event');
      await changeOrder(handle.db, clock, id!, actor, { edit: (o) => { o.confidence = 0.75; }, event: 'annotation_changed', reason: 'checked' });
      const events = await listOrderEvents(handle.db, id!);
      assert.deepEqual(events.map((e) => [e.type, e.from_state, e.to_state, e.note, e.changes]), [['annotation_changed', null, null, 'checked', { confidence: { before: 0.5, after: 0.75 } }]]);
      await assert.rejects(changeOrder(handle.db, clock, id!, actor, { event: 'responded' }), /needs a move/);
      await assert.rejects(changeOrder(handle.db, clock, id!, actor, { to: 'Failed', event: 'analysis_completed' }), /cannot record a move/);
      const row = await handle.db.selectFrom('orders').select('order_state').where('order_id', '=', id!).executeTakeFirstOrThrow();
      assert.equal(row.order_state, 'In Progress', 'a refused change writes nothing');
      assert.equal((await listOrderEvents(handle.db, id!)).length, 1);
    });

    if (target.name === 'postgres') {
      // PGlite has one connection, so only PostgreSQL can run two moves at once.
      it('two opposite moves in one scope at once both apply: the counter rows are locked in one order', async () => {
        const [a, , b] = await freshOrders('opposite', 3);
        await changeOrder(handle.db, clock, b!, actor, { to: 'Action Required' });
        const scope = { organization_id: ACME.id, scope_key: `project:${ACME.projects.zeta.id}` };
        let first: Promise<unknown> | undefined;
        await handle.db.transaction().execute(async (trx) => {
          // This transaction holds the Action Required row, as a move into that state would.
          await trx.selectFrom('order_counters').select('order_count').where('organization_id', '=', scope.organization_id)
            .where('scope_key', '=', scope.scope_key).where('order_state', '=', 'Action Required').forUpdate().execute();
          // Meanwhile a move In Progress → Action Required starts and waits for that row…
          first = changeOrder(handle.db, clock, a!, actor, { to: 'Action Required' });
          first.catch(() => undefined);
          await waitForLockWaiters(handle, 1);
          // …and this one moves Action Required → In Progress. Had the waiting move taken the In Progress row
          // before waiting, this would wait for it in turn: a circle PostgreSQL breaks with "deadlock detected".
          await changeOrderIn(trx, clock, b!, actor, { to: 'In Progress' });
        });
        await first;
        for (const [id, state] of [[a, 'Action Required'], [b, 'In Progress']] as const) {
          const row = await handle.db.selectFrom('orders').select('order_state').where('order_id', '=', id!).executeTakeFirstOrThrow();
          assert.equal(row.order_state, state);
        }
        assert.deepEqual(await handle.db.transaction().execute((trx) => recountOrderCounters(trx, true)), []);
      });
    }

    it('property: concurrent random moves keep the trail consistent and the counters exact', async () => {
      let round = 0;
      await fc.assert(
        fc.asyncProperty(fc.array(fc.tuple(fc.nat(5), fc.constantFrom(...ORDER_STATES)), { minLength: 5, maxLength: 30 }), async (moves) => {
          const ids = await freshOrders(`conc-${round++}`, 6);
          // Listings run between the moves, so the item cache holds versions the moves then replace.
          const listings: Array<Promise<unknown>> = [];
          const results = await Promise.allSettled(
            moves.map(async ([i, to], n) => {
              if (n % 3 === 0) listings.push(listOrdersBody(orders, admin, { projectId: 'All Projects', limit: 10, nowSeconds: NOW }));
              return changeOrder(handle.db, clock, ids[i]!, actor, { to });
            }),
          );
          await Promise.all(listings);
          for (const r of results) if (r.status === 'rejected') assert.ok(r.reason instanceof IllegalTransitionError, String(r.reason));
          for (const id of ids) {
            const events = await listOrderEvents(handle.db, id);
            let state: HumanOrderStateValue = 'In Progress';
            for (const e of events) {
              assert.equal(e.from_state, state);
              assert.ok(canMove(e.from_state as HumanOrderStateValue, e.to_state as HumanOrderStateValue));
              state = e.to_state as HumanOrderStateValue;
            }
            const row = await handle.db.selectFrom('orders').select('order_state').where('order_id', '=', id).executeTakeFirstOrThrow();
            assert.equal(row.order_state, state);
          }
          assert.equal(results.filter((r) => r.status === 'fulfilled').length, (await Promise.all(ids.map((id) => listOrderEvents(handle.db, id)))).flat().length);
          // Each order's stored documents are the renderer's for its final row, whatever order the moves ran in.
          assert.deepEqual(await checkDocuments(handle.db, ids), []);
          // And the listing, with whatever its item cache kept, is the page spliced from the rows as they are now.
          const options = { projectId: 'All Projects', limit: 10, nowSeconds: NOW };
          const listed = (await listOrdersBody(orders, admin, options)).toString('utf8');
          assert.equal(listed, renderOrdersResponse(await listOrders(orders, admin, options)));
          assert.deepEqual(await handle.db.transaction().execute((trx) => recountOrderCounters(trx, true)), []);
        }),
        { numRuns: 15 },
      );
    });
  });
}

/** Waits (polling, with a generous deadline) until `count` sessions of this database wait for a lock. */
async function waitForLockWaiters(handle: DatabaseHandle, count: number): Promise<void> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const { rows } = await sql<{ n: number }>`SELECT count(*)::int AS n FROM pg_stat_activity
      WHERE datname = current_database() AND wait_event_type = 'Lock'`.execute(handle.db);
    if (rows[0]!.n >= count) return;
    if (Date.now() > deadline) throw new Error(`no ${count} sessions waiting for a lock within 30 s`);
    await delay(10);
  }
}

// The temporary object storage folders this file made (test/helpers/fixtures.ts).
after(removeTemporaryObjectStorages);
