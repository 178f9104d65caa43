/**
 * GET /v1/orders/{order_id}/history end to end, through the real application: orders created through the
 * API and analyzed by the job queue record `created`, `analysis_completed`, `state_changed` (with the
 * reason) and `responded` (the customer's message, the evidence), oldest first, each with its id, time,
 * actor and changes; the route has the order's visibility (404 outside the caller's view, a project viewer
 * reads it) and the read scope; actions recorded with recordOrderEvent (the reviewer events) appear the
 * same way. Every answer is checked against the served OpenAPI document. On PGlite and PostgreSQL.
 */
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import type { OrderHistoryEventT, OrderHistoryT } from '../../src/contract/history-schemas.js';
import { SCOPES, type OrderT } from '../../src/contract/schemas.js';
import { createClient } from '../../src/domain/api-clients/client-admin.js';
import { recordOrderEvent } from '../../src/domain/history/order-history.service.js';
import { changeOrder } from '../../src/domain/orders/order-lifecycle.service.js';
import { ManualClock } from '../../src/domain/time/clock.js';
import { catalogues } from '../../src/i18n/index.js';
import { jobHandlers } from '../../src/jobs/job-runtime.js';
import { Worker } from '../../src/jobs/worker.js';
import { LocalDirectoryStorage } from '../../src/storage/object-storage/index.js';
import { xmpDeclaredImage } from '../helpers/analysis-files.js';
import { databaseTargets } from '../helpers/database.js';
import { ACME, GLOBEX, USERS, type FixtureUserName } from '../helpers/fixtures.js';
import { pngBytes, textBytes, truncatedPngBytes } from '../helpers/images.js';
import { obtainToken, startApi, type Api } from './api-harness.js';

type Writer = 'admin' | 'editor' | 'loner';

const START = Date.UTC(2030, 0, 1);
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const passed = (...types: string[]) => types.map((analysis_type) => ({ analysis_type, analysis_passed: true }));

for (const target of databaseTargets()) {
  describe(`order history on ${target.name}`, () => {
    let api: Api & { dir: string };
    let worker: Worker;
    const clock = new ManualClock(START);
    const writeTokens = {} as Record<Writer, string>;
    const clientIds = {} as Record<Writer, string>;

    before(async () => {
      api = await startApi(target, undefined, { clock });
      for (const name of ['admin', 'editor', 'loner'] as const) {
        const c = await createClient(api.database.db, { organizationId: ACME.id, userEmail: USERS[name].email, scopes: [SCOPES.read, SCOPES.write] });
        writeTokens[name] = await obtainToken(api.app, c.client_id, c.client_secret);
        clientIds[name] = c.client_id;
      }
      worker = new Worker({
        db: api.database.db,
        concurrency: 2,
        handlers: jobHandlers({ db: api.database.db, clock, storage: new LocalDirectoryStorage(api.dir), concurrency: 2 }),
      });
    });
    after(async () => {
      await api.close();
      rmSync(api.dir, { recursive: true, force: true });
    });

    const auth = (as: Writer) => ({ authorization: `Bearer ${writeTokens[as]}` });
    const operationId = () => api.openapi.operationIds().find((id) => id.startsWith('get_order_history_v1_'))!;

    /** Runs due jobs and moves the clock past any backoff until the queue is empty (one hour per round). */
    async function drain(): Promise<void> {
      for (let round = 0; round < 100; round++) {
        const ran = await worker.runDue();
        clock.advance(3_600_000);
        if (ran === 0 && (await worker.runDue()) === 0) return;
      }
      assert.fail('the queue did not settle');
    }

    async function upload(as: Writer, bytes: Buffer, fileName: string): Promise<string> {
      const res = await api.app.inject({ method: 'POST', url: '/v1/uploads', headers: auth(as), payload: { file_name: fileName, content_type: 'application/octet-stream', size: bytes.length } });
      assert.equal(res.statusCode, 201, res.body);
      const ticket = res.json() as { upload_id: string; upload_url: string; upload_headers: Record<string, string> };
      const put = await api.app.inject({ method: 'PUT', url: ticket.upload_url.replace('https://api.certdesk.test', ''), headers: ticket.upload_headers, payload: bytes });
      assert.equal(put.statusCode, 200, put.body);
      return ticket.upload_id;
    }

    async function order(as: Writer, bytes: Buffer, fileName: string, projectId: string | null): Promise<string> {
      const uploadId = await upload(as, bytes, fileName);
      const res = await api.app.inject({ method: 'POST', url: '/v1/orders', headers: auth(as), payload: { upload_id: uploadId, project_id: projectId, order_title: fileName } });
      assert.equal(res.statusCode, 201, res.body);
      return (res.json() as OrderT).order_id;
    }

    /** The history as `as` reads it (a fixture user's read token), checked against the document. */
    async function history(orderId: string, as: FixtureUserName = 'admin'): Promise<OrderHistoryEventT[]> {
      const res = await api.get(`/v1/orders/${encodeURIComponent(orderId)}/history`, as);
      assert.equal(res.statusCode, 200, res.body);
      assert.equal(res.headers['cache-control'], 'no-store');
      api.openapi.assertResponse(operationId(), 200, res.json());
      const body = res.json() as OrderHistoryT;
      assert.deepEqual(Object.keys(body), ['events']);
      for (const e of body.events) {
        assert.deepEqual(Object.keys(e).sort(), ['actor', 'at', 'changes', 'event_id', 'from_state', 'note', 'to_state', 'type']);
        assert.match(e.event_id, UUID);
        assert.match(e.at, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.(\d{3}|\d{6})Z$/);
      }
      assert.equal(new Set(body.events.map((e) => e.event_id)).size, body.events.length, 'event ids are distinct');
      return body.events;
    }

    it('a clean PNG: created by its user (e-mail, no client id), then analysis_completed by certdesk:analysis with the entries', async () => {
      const createdAt = new Date(clock.now()).toISOString();
      const id = await order('editor', pngBytes(), 'clean.png', ACME.projects.zeta.id);
      clock.advance(1234);
      const analysedAt = new Date(clock.now()).toISOString();
      assert.equal(await worker.runDue(), 1);
      const events = await history(id);
      assert.deepEqual(events.map(({ event_id: _, ...e }) => e), [
        { type: 'created', at: createdAt, actor: USERS.editor.email, from_state: null, to_state: 'In Progress', note: null, changes: null },
        {
          type: 'analysis_completed',
          at: analysedAt,
          actor: 'certdesk:analysis',
          from_state: null,
          to_state: null,
          note: null,
          changes: { analysis_list: { before: [], after: passed('file_type', 'metadata', 'layer_check') } },
        },
      ]);
      const text = JSON.stringify(events);
      assert.ok(!text.includes(clientIds.editor), 'the API client id is not shown');
      assert.ok(!text.includes('secret'), 'nothing of a secret');
    });

    it('flagged by metadata: analysis_completed with the failed item, then state_changed with the reason; the response is `responded`', async () => {
      const id = await order('editor', await xmpDeclaredImage('jpeg', 'trainedAlgorithmicMedia'), 'declared.jpg', ACME.projects.zeta.id);
      await drain();
      let events = await history(id);
      assert.deepEqual(events.map((e) => [e.type, e.from_state, e.to_state, e.actor]), [
        ['created', null, 'In Progress', USERS.editor.email],
        ['analysis_completed', null, null, 'certdesk:analysis'],
        ['state_changed', 'In Progress', 'Action Required', 'certdesk:analysis'],
      ]);
      const analysis = events[1]!.changes!;
      assert.deepEqual(analysis.analysis_list!.after, [...passed('file_type'), { analysis_type: 'metadata', analysis_passed: false }, ...passed('layer_check')]);
      assert.deepEqual((analysis.analysis_failed_items!.after as Array<{ type: string }>).map((i) => i.type), ['metadata']);
      assert.deepEqual(analysis.analysis_failed_items!.before, []);
      assert.equal(events[2]!.note, 'flagged by metadata');
      assert.equal(events[2]!.changes, null, 'the move itself changed no field');

      const message = 'Painted by hand.\n<script>alert("x")</script> & the layered file is attached.';
      const evidence = await upload('editor', pngBytes(), 'layers.png');
      clock.advance(60_000);
      const res = await api.app.inject({ method: 'POST', url: `/v1/orders/${id}/responses`, headers: auth('editor'), payload: { message, upload_ids: [evidence] } });
      assert.equal(res.statusCode, 201, res.body);
      events = await history(id);
      const responded = events.at(-1)!;
      assert.deepEqual(
        { ...responded, event_id: null },
        {
          event_id: null,
          type: 'responded',
          at: new Date(clock.now()).toISOString(),
          actor: USERS.editor.email,
          from_state: 'Action Required',
          to_state: 'In Progress',
          note: message,
          changes: { upload_ids: { before: [], after: [evidence] } },
        },
      );
    });

    it('a response without evidence has no changes', async () => {
      const id = await order('loner', pngBytes(), 'personal.png', null);
      await drain();
      await changeOrder(api.database.db, clock, id, { kind: 'system', component: 'test' }, { to: 'Action Required', reason: 'please explain' });
      const res = await api.app.inject({ method: 'POST', url: `/v1/orders/${id}/responses`, headers: auth('loner'), payload: { message: 'It is mine' } });
      assert.equal(res.statusCode, 201, res.body);
      const events = await history(id, 'loner');
      assert.deepEqual(events.slice(-2).map((e) => [e.type, e.actor, e.note, e.changes]), [
        ['state_changed', 'certdesk:test', 'please explain', null],
        ['responded', USERS.loner.email, 'It is mine', null],
      ]);
    });

    it('a file that is not an image: state_changed to Unsupported File, the reason as note, the entry in changes', async () => {
      const id = await order('editor', textBytes(), 'not-an-image.png', ACME.projects.beta.id);
      await drain();
      const events = await history(id);
      assert.deepEqual(events.map((e) => [e.type, e.from_state, e.to_state, e.actor]), [
        ['created', null, 'In Progress', USERS.editor.email],
        ['state_changed', 'In Progress', 'Unsupported File', 'certdesk:analysis'],
      ]);
      assert.match(events[1]!.note ?? '', /^file_type: /);
      assert.deepEqual(events[1]!.changes, { analysis_list: { before: [], after: [{ analysis_type: 'file_type', analysis_passed: false }] } });
    });

    it('an image that cannot be decoded ends in a final state by certdesk:analysis, with the reason and the failed entry', async () => {
      const id = await order('loner', truncatedPngBytes(), 'cut.png', null);
      await drain();
      const events = await history(id, 'loner');
      assert.deepEqual(events[0]!.type, 'created');
      const last = events.at(-1)!;
      assert.equal(last.type, 'state_changed');
      assert.equal(last.actor, 'certdesk:analysis');
      assert.equal(last.from_state, 'In Progress');
      assert.ok(['Failed', 'Unsupported File'].includes(last.to_state!), String(last.to_state));
      assert.ok((last.note ?? '').length > 0, 'the reason is the note');
      const entries = last.changes?.analysis_list?.after as Array<{ analysis_passed: boolean }>;
      assert.ok(entries.some((l) => !l.analysis_passed), 'the failing check is recorded as not passed');
    });

    it('reviewer actions recorded with recordOrderEvent appear with the reviewer\'s e-mail, no states, their note and changes', async () => {
      const id = await order('editor', pngBytes(), 'reviewed.png', ACME.projects.zeta.id);
      await drain();
      const reviewer = { kind: 'user' as const, userId: '00000000-0000-4000-8000-00000000beef', email: 'reviewer@certifier.test', clientId: null };
      await api.database.db.transaction().execute(async (trx) => {
        await recordOrderEvent(trx, clock, id, reviewer, { type: 'claimed' });
      });
      clock.advance(1000);
      await changeOrder(api.database.db, clock, id, reviewer, {
        edit: (o) => {
          o.remediation = 1;
        },
        event: 'annotation_changed',
        reason: 'region confirmed',
      });
      clock.advance(1000);
      await changeOrder(api.database.db, clock, id, reviewer, {
        to: 'Human Certified',
        reason: 'Looked at every layer',
        edit: (o) => {
          o.reviewed_by = reviewer.email;
          o.review_timestamp = clock.now().toISOString();
        },
      });
      await api.database.db.transaction().execute((trx) =>
        recordOrderEvent(trx, clock, id, reviewer, { type: 'certificate_issued', changes: { certificate_id: { before: null, after: 'c-1' } } }),
      );
      const events = (await history(id)).slice(2);
      assert.deepEqual(events.map(({ event_id: _, at: __, ...e }) => e), [
        { type: 'claimed', actor: reviewer.email, from_state: null, to_state: null, note: null, changes: null },
        { type: 'annotation_changed', actor: reviewer.email, from_state: null, to_state: null, note: 'region confirmed', changes: { remediation: { before: 0, after: 1 } } },
        {
          type: 'state_changed',
          actor: reviewer.email,
          from_state: 'In Progress',
          to_state: 'Human Certified',
          note: 'Looked at every layer',
          changes: { reviewed_by: { before: null, after: reviewer.email }, review_timestamp: { before: null, after: clock.now().toISOString() } },
        },
        { type: 'certificate_issued', actor: reviewer.email, from_state: null, to_state: null, note: null, changes: { certificate_id: { before: null, after: 'c-1' } } },
      ]);
      await assert.rejects(
        api.database.db.transaction().execute((trx) => recordOrderEvent(trx, clock, id, reviewer, { type: 'state_changed' as never })),
        /is a move/,
      );
    });

    it('oldest first in the order of recording, even when a clock goes back; `at` keeps the database\'s microseconds', async () => {
      const id = await order('editor', pngBytes(), 'order.png', ACME.projects.zeta.id);
      await drain();
      clock.advance(-3_600_000 * 10);
      await changeOrder(api.database.db, clock, id, { kind: 'system', component: 'skewed' }, { to: 'Failed', reason: 'a process with a late clock' });
      const events = await history(id);
      assert.deepEqual(events.map((e) => e.type), ['created', 'analysis_completed', 'state_changed']);
      assert.ok(events[2]!.at < events[1]!.at, 'the later event carries the earlier time its process gave it');
      clock.advance(3_600_000 * 10);
      await sql`UPDATE order_events SET occurred_at = '2030-02-03T04:05:06.123456Z' WHERE order_id = ${id} AND type = 'created'`.execute(api.database.db);
      await sql`UPDATE order_events SET occurred_at = '2030-02-03T04:05:06.5Z' WHERE order_id = ${id} AND type = 'analysis_completed'`.execute(api.database.db);
      const precise = await history(id);
      assert.deepEqual(precise.slice(0, 2).map((e) => e.at), ['2030-02-03T04:05:06.123456Z', '2030-02-03T04:05:06.500Z']);
    });

    it("has the order's visibility: 404 outside the caller's view, exactly as for an order that does not exist", async () => {
      const inZeta = await order('editor', pngBytes(), 'zeta.png', ACME.projects.zeta.id);
      const personal = await order('loner', pngBytes(), 'mine.png', null);
      await drain();
      const expected = await history(inZeta, 'admin');
      // A viewer of the project (not an administrator) reads the same history, as they read the order.
      assert.deepEqual(await history(inZeta, 'viewer'), expected);
      assert.deepEqual(await history(inZeta, 'editor'), expected);
      assert.equal((await history(personal, 'loner')).length, 2);
      assert.equal((await history(personal, 'admin')).length, 2, 'an administrator sees every personal order');
      const missing = await api.get('/v1/orders/no-such-order/history', 'admin');
      assert.equal(missing.statusCode, 404);
      assert.deepEqual(missing.json(), { detail: catalogues.en['errors.order_not_found'] });
      api.openapi.assertResponse(operationId(), 404, missing.json());
      for (const [as, orderId] of [['loner', inZeta], ['viewer', personal], ['editor', personal], ['other', inZeta], ['other', personal]] as const) {
        const res = await api.get(`/v1/orders/${orderId}/history`, as);
        assert.equal(res.statusCode, 404, `${as} ${orderId}`);
        assert.equal(res.body, missing.body, 'indistinguishable from an order that does not exist');
      }
      const french = await api.get(`/v1/orders/${inZeta}/history`, 'other', { lang: 'fr' });
      assert.deepEqual(french.json(), { detail: catalogues.fr['errors.order_not_found'] });
      // Another organization's own order is theirs alone.
      const globexOrder = (await api.get(`/v1/orders?project_id=${GLOBEX.projects.alpha.id}&limit=1`, 'other')).json() as { orders: OrderT[] };
      const theirs = globexOrder.orders[0]!.order_id;
      assert.equal((await api.get(`/v1/orders/${theirs}/history`, 'admin')).statusCode, 404);
      assert.deepEqual(await history(theirs, 'other'), [], 'an order loaded by seed has no recorded events');
    });

    it('needs the read scope: 401 without a token, 403 with a write-only token', async () => {
      const id = await order('editor', pngBytes(), 'scoped.png', ACME.projects.zeta.id);
      const none = await api.app.inject({ url: `/v1/orders/${id}/history` });
      assert.equal(none.statusCode, 401);
      assert.deepEqual(none.json(), { detail: 'Not authenticated' });
      const c = await createClient(api.database.db, { organizationId: ACME.id, userEmail: USERS.admin.email, scopes: [SCOPES.write] });
      const writeOnly = await obtainToken(api.app, c.client_id, c.client_secret);
      const res = await api.app.inject({ url: `/v1/orders/${id}/history`, headers: { authorization: `Bearer ${writeOnly}` } });
      assert.equal(res.statusCode, 403);
      assert.match(String(res.headers['www-authenticate']), /insufficient_scope/);
    });
  });
}
