/**
 * The order page's history section, server-rendered (app.inject, signed in through the real form): an
 * organization administrator sees the order's events oldest first, with types in the page's language and
 * every note escaped (a `<script>` payload stays text); a project member who is not an administrator sees
 * the order without the section. On PGlite and PostgreSQL.
 */
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { after, before, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { recordOrderEvent } from '../../src/domain/history/order-history.service.js';
import { changeOrder } from '../../src/domain/orders/order-lifecycle.service.js';
import { ManualClock } from '../../src/domain/time/clock.js';
import { catalogues } from '../../src/i18n/index.js';
import { describeOnEachDatabase } from '../helpers/database.js';
import { ACME, loadStandardFixture, temporaryObjectStorage, USERS, type FixtureUserName } from '../helpers/fixtures.js';
import { buildWebApp, signIn } from './web-test-helpers.js';

const SCRIPT_NOTE = '<script>alert("history")</script> flagged & held';
const IMG_MESSAGE = 'Mine: <img src=x onerror=alert(1)> "quoted"';

describeOnEachDatabase('order page history section', (getDb) => {
  const objects = temporaryObjectStorage();
  const clock = new ManualClock(Date.UTC(2031, 4, 6, 7, 8, 9));
  let app: FastifyInstance;
  let orderId: string;
  let quietOrderId: string;
  const cookies = new Map<FixtureUserName, string>();

  before(async () => {
    await loadStandardFixture(getDb(), objects.storage);
    app = await buildWebApp(getDb(), objects.storage);
    const inZeta = await getDb()
      .db.selectFrom('orders')
      .select('order_id')
      .where('project_id', '=', ACME.projects.zeta.id)
      .where('order_state', '=', 'In Progress')
      .orderBy('order_id')
      .limit(2)
      .execute();
    [orderId, quietOrderId] = inZeta.map((r) => r.order_id) as [string, string];
    const editor = { kind: 'user' as const, userId: '00000000-0000-4000-8000-0000000000ed', email: USERS.editor.email, clientId: 'editor-client' };
    await changeOrder(getDb().db, clock, orderId, { kind: 'system', component: 'analysis' }, { to: 'Action Required', reason: SCRIPT_NOTE });
    clock.advance(60_000);
    await changeOrder(getDb().db, clock, orderId, editor, {
      to: 'In Progress',
      event: 'responded',
      reason: IMG_MESSAGE,
      changes: { upload_ids: { before: [], after: ['0a0a0a0a-0000-4000-8000-00000000f00d'] } },
    });
    clock.advance(60_000);
    await getDb().db.transaction().execute((trx) => recordOrderEvent(trx, clock, orderId, { kind: 'user', userId: editor.userId, email: 'reviewer@certifier.test', clientId: null }, { type: 'claimed' }));
    for (const name of ['admin', 'editor'] as const) {
      const { jar } = await signIn(app, USERS[name].email, USERS[name].password);
      cookies.set(name, jar.header());
    }
  });
  after(async () => {
    await app.close();
    rmSync(objects.dir, { recursive: true, force: true });
  });

  const page = async (as: FixtureUserName, id: string, query = '') => {
    const res = await app.inject({ url: `/orders/${encodeURIComponent(id)}${query}`, headers: { cookie: cookies.get(as)! } });
    assert.equal(res.statusCode, 200, res.body.slice(0, 300));
    return res.body;
  };
  const section = (body: string) => {
    const start = body.indexOf('aria-labelledby="history-title"');
    assert.ok(start > 0, 'the page has a history section');
    return body.slice(start, body.indexOf('</section>', start));
  };

  test('an organization administrator sees the events oldest first, with who, the move, the note and the changes', async () => {
    const history = section(await page('admin', orderId));
    const en = catalogues.en;
    assert.match(history, new RegExp(`<h2 id="history-title">${en['web.order.history']}</h2>`));
    assert.deepEqual([...history.matchAll(/data-event-type="([a-z_]+)"/g)].map((m) => m[1]), ['state_changed', 'responded', 'claimed']);
    assert.ok(history.includes(en['web.history.type.state_changed']));
    assert.ok(history.includes(en['web.history.type.responded']));
    assert.ok(history.includes(en['web.history.type.claimed']));
    assert.ok(history.includes('by certdesk:analysis'));
    assert.ok(history.includes(`by ${USERS.editor.email}`));
    assert.ok(history.includes('by reviewer@certifier.test'));
    assert.ok(!history.includes('editor-client'), 'the API client id is not shown');
    assert.match(history, /<span class="badge state-in-progress">In Progress<\/span> → <span class="badge state-action-required">Action Required<\/span>/);
    assert.ok(history.includes('<time datetime="2031-05-06T07:08:09.000Z">'), 'the time of the first event');
    assert.ok(history.includes(`<dd data-change="upload_ids">${en['web.none']} → 0a0a0a0a-0000-4000-8000-00000000f00d</dd>`), 'the evidence of the response');
  });

  test('notes are text: a <script> or an <img> payload is escaped, never markup', async () => {
    const body = await page('admin', orderId);
    const history = section(body);
    assert.ok(history.includes('&lt;script&gt;alert(&quot;history&quot;)&lt;/script&gt; flagged &amp; held'));
    assert.ok(history.includes('Mine: &lt;img src=x onerror=alert(1)&gt; &quot;quoted&quot;'));
    assert.ok(!body.includes('<script>alert'), 'no script element from a note');
    assert.ok(!body.includes('<img src=x'), 'no img element from a note');
  });

  test('a project member who is not an administrator sees the order without the history', async () => {
    const body = await page('editor', orderId);
    assert.ok(body.includes('data-live-state'), 'the order page itself');
    assert.ok(!body.includes('history-title'), 'no history section');
    assert.ok(!body.includes(SCRIPT_NOTE) && !body.includes('&lt;script&gt;alert(&quot;history'), 'no note of the history either');
  });

  test('in the page language; an order with no recorded event says so', async () => {
    const fr = catalogues.fr;
    const history = section(await page('admin', orderId, '?lang=fr'));
    assert.ok(history.includes(`>${fr['web.order.history']}</h2>`));
    assert.ok(history.includes(fr['web.history.type.responded']));
    assert.ok(history.includes(fr['web.history.by'].replace('{actor}', USERS.editor.email)));
    const quiet = section(await page('admin', quietOrderId, '?lang=en'));
    assert.ok(quiet.includes(catalogues.en['web.history.none']));
  });
});
