/**
 * `creation_time` and `review_timestamp` keep the database's microseconds from the way in to every API
 * document: orders written by `seed` and by the NDJSON import come back from GET /v1/orders (full orders
 * and previews) with the same six fractional digits, normalized to UTC; the web order page still shows a
 * readable date. On PGlite and PostgreSQL.
 */
import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import { after, before, it } from 'node:test';
import type { OrderInputT } from '../../src/domain/orders/order-input.schema.js';
import { importOrders } from '../../src/domain/order-import/order-import.js';
import { loadSeed } from '../../src/domain/seed/seed.js';
import { describeOnEachDatabase } from '../helpers/database.js';
import { ACME, standardSeedDocument, temporaryObjectStorage, USERS, removeTemporaryObjectStorages } from '../helpers/fixtures.js';
import { signIn } from '../web/web-test-helpers.js';
import { startApi, type Api } from './api-harness.js';

/** One reviewed personal order of the admin, at the given instants (any RFC 3339 offset). */
function reviewedOrder(orderId: string, creationTime: string, reviewTimestamp: string): OrderInputT {
  return {
    order_id: orderId,
    username: USERS.admin.username,
    email: USERS.admin.email,
    order_state: 'Reviewed',
    order_title: orderId,
    asset_id: `asset-${orderId}`,
    asset_name: `${orderId}.psd`,
    asset_last_modified_timestamp: '1767225600',
    ordered_by: null,
    creation_time: creationTime,
    reviewed_by: USERS.admin.email,
    review_timestamp: reviewTimestamp,
    project_id: null,
  };
}

/** What each order is written with, and what every document must say. */
const CASES = [
  {
    orderId: 'micro-seed',
    via: 'seed',
    input: reviewedOrder('micro-seed', '2026-01-01T03:41:17.123456Z', '2026-01-02T05:06:07.000001Z'),
    creationTime: '2026-01-01T03:41:17.123456Z',
    reviewTimestamp: '2026-01-02T05:06:07.000001Z',
  },
  {
    orderId: 'micro-seed-next',
    via: 'seed',
    // One microsecond later: the pages must tell the two apart.
    input: reviewedOrder('micro-seed-next', '2026-01-01T03:41:17.123457Z', '2026-01-02T05:06:07Z'),
    creationTime: '2026-01-01T03:41:17.123457Z',
    reviewTimestamp: '2026-01-02T05:06:07.000Z',
  },
  {
    orderId: 'micro-import',
    via: 'import',
    // An offset and more than six digits: normalized to UTC, rounded to the microsecond.
    input: reviewedOrder('micro-import', '2026-01-01T05:41:17.6543214+02:00', '2026-01-03T00:00:00.999999Z'),
    creationTime: '2026-01-01T03:41:17.654321Z',
    reviewTimestamp: '2026-01-03T00:00:00.999999Z',
  },
];

describeOnEachDatabase('microsecond timestamps from seed and import to the API', (getDb) => {
  let api: Api;

  before(async () => {
    api = await startApi(getDb());
    const seed = standardSeedDocument();
    seed.organizations[0]!.orders!.push(...CASES.filter((c) => c.via === 'seed').map((c) => c.input));
    await loadSeed(getDb().db, temporaryObjectStorage().storage, seed);
    await importOrders(getDb(), { organizationId: ACME.id, input: Readable.from(CASES.filter((c) => c.via === 'import').map((c) => `${JSON.stringify(c.input)}\n`)) });
  });
  after(() => api.close());

  it('stores the exact microsecond in the row', async () => {
    for (const c of CASES) {
      const row = await getDb()
        .db.selectFrom('orders')
        .select((eb) => eb.fn<string>('to_char', [eb.ref('creation_time'), eb.val('YYYY-MM-DD"T"HH24:MI:SS.US"Z"')]).as('creation_time'))
        .where('order_id', '=', c.orderId)
        .executeTakeFirstOrThrow();
      assert.equal(row.creation_time, c.creationTime, `${c.via}: the database holds what the document says`);
    }
  });

  it('full orders carry both timestamps to the microsecond', async () => {
    const res = await api.get('/v1/orders?project_id=Personal%20Certificates&limit=100', 'admin');
    assert.equal(res.statusCode, 200, res.body);
    const body = res.json() as { orders: Array<Record<string, unknown>> };
    api.openapi.assertResponse('get_orders_v1_orders_get', 200, body);
    for (const c of CASES) {
      const order = body.orders.find((o) => o.order_id === c.orderId);
      assert.ok(order, `${c.orderId} is listed`);
      assert.equal(order.creation_time, c.creationTime, `${c.via}: creation_time`);
      assert.equal(order.review_timestamp, c.reviewTimestamp, `${c.via}: review_timestamp`);
    }
  });

  it('previews carry creation_time to the microsecond', async () => {
    const res = await api.get('/v1/orders?project_id=Personal%20Certificates&preview=true&limit=100', 'admin');
    assert.equal(res.statusCode, 200, res.body);
    const body = res.json() as { order_previews: Array<Record<string, unknown>> };
    for (const c of CASES) {
      assert.equal(body.order_previews.find((o) => o.order_id === c.orderId)?.creation_time, c.creationTime, `${c.via}: preview creation_time`);
    }
  });

  it('pages by the exact instant: two orders a microsecond apart are both listed, once, in order', async () => {
    const seen: string[] = [];
    let token: string | null = null;
    do {
      const url: string = `/v1/orders?project_id=Personal%20Certificates&preview=true&limit=1${token ? `&page_token=${encodeURIComponent(token)}` : ''}`;
      const body = (await api.get(url, 'admin')).json() as { order_previews: Array<{ order_id: string; creation_time: string }>; next_page_token: string | null };
      seen.push(...body.order_previews.map((o) => `${o.creation_time} ${o.order_id}`));
      token = body.next_page_token;
    } while (token);
    assert.deepEqual(seen, [...seen].sort().reverse(), 'newest first, by the full timestamp');
    for (const c of CASES) assert.equal(seen.filter((s) => s.endsWith(` ${c.orderId}`)).length, 1, `${c.orderId} once`);
    assert.equal(seen.indexOf('2026-01-01T03:41:17.123457Z micro-seed-next') + 1, seen.indexOf('2026-01-01T03:41:17.123456Z micro-seed'), 'the later one first');
  });

  it('the web order page shows the date readably, with a valid <time datetime>', async () => {
    const { jar } = await signIn(api.app, USERS.admin.email, USERS.admin.password);
    const page = await api.app.inject({ url: '/orders/micro-seed', headers: { cookie: jar.header() } });
    assert.equal(page.statusCode, 200);
    // HTML's date-time strings allow up to three fractional digits: the page shows milliseconds.
    assert.match(page.body, /<time datetime="2026-01-01T03:41:17\.123Z">Jan 1, 2026, 3:41\s?AM UTC<\/time>/);
  });
});

// The temporary object storage folders this file made (test/helpers/fixtures.ts).
after(removeTemporaryObjectStorages);
