import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import fc from 'fast-check';
import { describeOnEachDatabase } from '../../../test/helpers/database.js';
import { ACME, GLOBEX, USERS, loadStandardFixture, type FixtureUserName, removeTemporaryObjectStorages } from '../../../test/helpers/fixtures.js';
import { expectedOrderIds, expectedStats, principalOf } from '../../../test/helpers/orders-oracle.js';
import { loadConfig } from '../../config.js';
import { InvalidPageTokenError } from '../../storage/page-token.js';
import type { Principal } from '../principal.js';
import { toOrderRow } from './order-document.js';
import { PageBodyMemo } from './page-body-memo.js';
import { PageItemCache } from './page-item-cache.js';
import { upsertOrders } from './order.repository.js';
import {
  createOrdersContext,
  findVisibleOrder,
  listOrders,
  listOrdersBody,
  OrderScopeNotFoundError,
  renderOrdersResponse,
  sortProjectNames,
  type ListOrdersOptions,
  type OrdersContext,
} from './index.js';

const config = loadConfig({ PUBLIC_BASE_URL: 'http://certdesk.test' });
const NAMES: FixtureUserName[] = ['admin', 'editor', 'viewer', 'loner', 'other'];
const ALL_FILTERS = ['All Projects', 'Personal Certificates', ACME.projects.zeta.id, ACME.projects.beta.id, ACME.projects.ecran.id, GLOBEX.projects.alpha.id];

/** Every page of a walk, concatenated; asserts no page after the last and no empty page. */
async function walk(ctx: OrdersContext, principal: Principal, projectId: string, limits: number[] | number, between?: () => Promise<void>): Promise<string[]> {
  const ids: string[] = [];
  let token: string | null = null;
  let page = 0;
  do {
    const limit = Array.isArray(limits) ? limits[page % limits.length]! : limits;
    const listing = await listOrders(ctx, principal, { projectId, limit, pageToken: token, preview: page % 2 === 1 });
    assert.ok(listing.orders.length <= limit);
    if (page > 0) assert.ok(listing.orders.length > 0, 'a token never leads to an empty page');
    if (listing.nextPageToken) assert.equal(listing.orders.length, limit, 'only a full page promises another');
    ids.push(...listing.orders.map((o) => o.orderId));
    token = listing.nextPageToken;
    page += 1;
    if (token && between) await between();
  } while (token);
  return ids;
}

describeOnEachDatabase('order listing', (getDb) => {
  let ctx: OrdersContext;
  const principals = {} as Record<FixtureUserName, Principal>;

  before(async () => {
    await loadStandardFixture(getDb());
    ctx = await createOrdersContext(getDb().db, config);
    for (const n of NAMES) principals[n] = await principalOf(getDb(), n);
  });

  it('walks every visible order exactly once, in order, for every caller, filter and limit', async () => {
    for (const name of NAMES) {
      for (const filter of ['All Projects', 'Personal Certificates', ...ALL_FILTERS.slice(2)]) {
        let expected: string[];
        try {
          await listOrders(ctx, principals[name], { projectId: filter, limit: 1 });
        } catch (err) {
          assert.ok(err instanceof OrderScopeNotFoundError, `${name} ${filter}: ${String(err)}`);
          continue;
        }
        expected = await expectedOrderIds(getDb(), principals[name], filter);
        const limits = [1, 7, 200, 1000, Math.max(1, expected.length), Math.max(1, expected.length / 2)];
        for (const limit of limits.filter(Number.isInteger)) {
          assert.deepEqual(await walk(ctx, principals[name], filter, limit), expected, `${name} ${filter} limit ${limit}`);
        }
      }
    }
  });

  it('answers 404 (OrderScopeNotFoundError) for projects outside the caller\'s view', async () => {
    const cases: Array<[FixtureUserName, string]> = [
      ['viewer', ACME.projects.beta.id],
      ['viewer', ACME.projects.ecran.id],
      ['loner', ACME.projects.zeta.id],
      ['editor', ACME.projects.ecran.id],
      ['admin', GLOBEX.projects.alpha.id],
      ['other', ACME.projects.zeta.id],
      ['admin', 'not-a-uuid'],
      ['admin', 'all projects'],
      ['admin', '00000000-0000-4000-8000-000000000000'],
    ];
    for (const [name, filter] of cases) {
      await assert.rejects(listOrders(ctx, principals[name], { projectId: filter }), OrderScopeNotFoundError, `${name} ${filter}`);
    }
    // A visible project may be named in upper case.
    const upper = await listOrders(ctx, principals.viewer, { projectId: ACME.projects.zeta.id.toUpperCase() });
    assert.ok(upper.orders.length > 0);
  });

  it('takes order_stats from the counters and matches a real count of the visible orders', async () => {
    for (const name of NAMES) {
      for (const filter of ALL_FILTERS) {
        const listing = await listOrders(ctx, principals[name], { projectId: filter, limit: 1 }).catch(() => null);
        if (!listing) continue;
        assert.deepEqual({ ...listing.stats }, await expectedStats(getDb(), principals[name], filter), `${name} ${filter}`);
      }
    }
  });

  it('lists project names for All Projects only, Personal Certificates first, then by collation', async () => {
    const admin = await listOrders(ctx, principals.admin, { projectId: 'All Projects', limit: 1 });
    assert.deepEqual(admin.projectNames, ['Personal Certificates', 'beta', 'Écran', 'Zeta']);
    const editor = await listOrders(ctx, principals.editor, { projectId: 'All Projects', limit: 1 });
    assert.deepEqual(editor.projectNames, ['Personal Certificates', 'beta', 'Zeta']);
    const loner = await listOrders(ctx, principals.loner, { projectId: 'All Projects', limit: 1 });
    assert.deepEqual(loner.projectNames, ['Personal Certificates']);
    const other = await listOrders(ctx, principals.other, { projectId: 'All Projects', limit: 1 });
    assert.deepEqual(other.projectNames, ['Personal Certificates', 'Alpha']);
    for (const filter of ['Personal Certificates', ACME.projects.zeta.id]) {
      assert.deepEqual((await listOrders(ctx, principals.admin, { projectId: filter, limit: 1 })).projectNames, []);
    }
    assert.deepEqual(sortProjectNames(['b', 'B', 'a', 'É', 'e', 'Z']), ['a', 'B', 'b', 'e', 'É', 'Z']);
  });

  it('gives the caller\'s role in each order\'s project and null for personal orders', async () => {
    const roles = async (name: FixtureUserName) => {
      const listing = await listOrders(ctx, principals[name], { projectId: 'All Projects', limit: 1000 });
      const seen = new Map<string, string | null>();
      for (const o of listing.orders) seen.set(o.project?.name ?? 'personal', o.project?.userRole ?? null);
      return Object.fromEntries(seen);
    };
    assert.deepEqual(await roles('admin'), { Zeta: 'admin', beta: 'admin', 'Écran': 'admin', personal: null });
    assert.deepEqual(await roles('editor'), { Zeta: 'editor', beta: 'admin', personal: null });
    assert.deepEqual(await roles('viewer'), { Zeta: 'viewer' });
    assert.deepEqual(await roles('loner'), { personal: null });
  });

  it('refuses malformed, tampered and mismatched page tokens', async () => {
    const first = await listOrders(ctx, principals.editor, { projectId: 'All Projects', limit: 2 });
    const token = first.nextPageToken!;
    assert.ok(token);
    assert.match(token, /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/, 'URL-safe');
    const problem = async (p: Principal, projectId: string, pageToken: string) => {
      try {
        await listOrders(ctx, p, { projectId, pageToken });
        return 'accepted';
      } catch (err) {
        assert.ok(err instanceof InvalidPageTokenError, String(err));
        return err.problem;
      }
    };
    const [body, sig] = token.split('.') as [string, string];
    const flipped = sig.slice(0, -2) + (sig.at(-2) === 'A' ? 'B' : 'A') + sig.at(-1);
    assert.equal(await problem(principals.editor, 'All Projects', `${body}.${flipped}`), 'signature');
    // Every single-character change of the signature is refused (the spare bits of the last one included).
    for (const i of [0, sig.length - 1]) {
      const alt = sig.slice(0, i) + (sig[i] === 'A' ? 'B' : 'A') + sig.slice(i + 1);
      assert.equal(await problem(principals.editor, 'All Projects', `${body}.${alt}`), 'signature');
      const alt2 = sig.slice(0, i) + String.fromCharCode(sig.charCodeAt(i) ^ 1) + sig.slice(i + 1);
      if (/^[\w-]+$/.test(alt2)) assert.equal(await problem(principals.editor, 'All Projects', `${body}.${alt2}`), 'signature');
    }
    // A forged position (another order id, another instant) under the old signature.
    const payload = JSON.parse(Buffer.from(body, 'base64url').toString()) as unknown[];
    payload[4] = String(BigInt(payload[4] as string) + 1n);
    const forged = Buffer.from(JSON.stringify(payload)).toString('base64url');
    assert.equal(await problem(principals.editor, 'All Projects', `${forged}.${sig}`), 'signature');
    assert.equal(await problem(principals.viewer, 'All Projects', token), 'mismatch');
    assert.equal(await problem(principals.editor, ACME.projects.zeta.id, token), 'mismatch');
    assert.equal(await problem(principals.other, 'All Projects', token), 'mismatch');
    for (const garbage of ['x', '.', 'abc.', '.abc', 'a.b.c', '%%%', 'a'.repeat(5000)]) {
      assert.equal(await problem(principals.editor, 'All Projects', garbage), 'malformed', garbage.slice(0, 20));
    }
    assert.equal(await problem(principals.editor, 'All Projects', token), 'accepted');
  });

  it('returns each order that existed when the walk started exactly once while new orders arrive', async () => {
    const admin = principals.admin;
    const before = await expectedOrderIds(getDb(), admin, 'All Projects');
    let n = 0;
    const insert = async () => {
      n += 1;
      // Newer than everything (they sort before the cursor) and also one in the past (lands after it).
      const row = (id: string, created: string) =>
        toOrderRow(ACME.id, {
          order_id: id, username: 'Admin', email: USERS.admin.email, order_state: 'In Progress', order_title: id,
          asset_id: id, asset_name: `${id}.psd`, asset_last_modified_timestamp: '1767225600', ordered_by: null, creation_time: created,
        });
      await upsertOrders(getDb().db, [row(`late-new-${n}`, new Date(Date.UTC(2027, 0, 1) + n * 1000).toISOString())]);
    };
    const seen = await walk(ctx, admin, 'All Projects', [3, 5], insert);
    assert.ok(n > 3);
    assert.equal(new Set(seen).size, seen.length, 'no duplicates');
    assert.deepEqual(seen.filter((id) => !id.startsWith('late-new-')), before);
    assert.equal(seen.filter((id) => id.startsWith('late-new-')).length, 0, 'newer orders appear before the cursor, so not in this walk');
    await getDb().db.deleteFrom('orders').where('order_id', 'like', 'late-new-%').execute();
  });

  it('keeps walks exact at microsecond precision with creation-time ties', async () => {
    const base = Date.UTC(2030, 5, 1);
    const rows = Array.from({ length: 9 }, (_, i) =>
      toOrderRow(ACME.id, {
        order_id: `micro-${i}`, username: 'Loner', email: USERS.loner.email, order_state: 'Failed', order_title: '',
        asset_id: 'a', asset_name: 'a', asset_last_modified_timestamp: '1', ordered_by: null, creation_time: new Date(base).toISOString(),
      }),
    );
    await upsertOrders(getDb().db, rows);
    // Sub-millisecond instants, which the renderer never writes but an import or a later writer may.
    for (let i = 0; i < 9; i++) {
      await getDb().db.updateTable('orders').set({ creation_time: `2030-06-01T00:00:00.000${i % 3}${i % 2}0Z` }).where('order_id', '=', `micro-${i}`).execute();
    }
    const expected = await expectedOrderIds(getDb(), principals.loner, 'Personal Certificates');
    for (const limit of [1, 2, 4]) assert.deepEqual(await walk(ctx, principals.loner, 'Personal Certificates', limit), expected);
    await getDb().db.deleteFrom('orders').where('order_id', 'like', 'micro-%').execute();
  });

  it('property: for random callers, filters and page sizes, the pages concatenate to the recount', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...NAMES),
        fc.constantFrom(...ALL_FILTERS),
        fc.array(fc.integer({ min: 1, max: 60 }), { minLength: 1, maxLength: 4 }),
        async (name, filter, limits) => {
          let expected: string[];
          try {
            await listOrders(ctx, principals[name], { projectId: filter, limit: 1 });
            expected = await expectedOrderIds(getDb(), principals[name], filter);
          } catch (err) {
            assert.ok(err instanceof OrderScopeNotFoundError);
            return;
          }
          assert.deepEqual(await walk(ctx, principals[name], filter, limits), expected);
        },
      ),
      { numRuns: 40 },
    );
  });

  it('renders every field with its default and splices valid JSON', async () => {
    const full = JSON.parse(renderOrdersResponse(await listOrders(ctx, principals.admin, { projectId: 'All Projects', limit: 1000 })));
    assert.deepEqual(Object.keys(full).sort(), ['next_page_token', 'order_previews', 'order_stats', 'orders', 'project_names']);
    assert.equal(full.order_previews, null);
    assert.equal(full.next_page_token, null);
    const orderKeys = [
      'analysis_failed_items', 'analysis_list', 'annotations', 'asset_id', 'asset_last_modified_timestamp', 'asset_name', 'asset_preview_url',
      'confidence', 'creation_time', 'email', 'layers_info', 'order_id', 'order_state', 'order_title', 'ordered_by', 'project', 'remediation',
      'review_timestamp', 'reviewed_by', 'tags', 'username',
    ];
    for (const o of full.orders) assert.deepEqual(Object.keys(o).sort(), orderKeys);
    const noPreview = full.orders.find((o: { asset_preview_url: unknown }) => o.asset_preview_url === null);
    assert.ok(noPreview, 'some orders have no preview');
    assert.ok(full.orders.some((o: { layers_info: unknown[] }) => o.layers_info.length === 1));
    assert.match(full.orders.find((o: { asset_preview_url: unknown }) => o.asset_preview_url).asset_preview_url, /^http:\/\/certdesk\.test\/objects\/orgs\/[0-9a-f-]{36}\/previews\/acme-\d+\.png\?expires=\d+&signature=[\w-]+$/);
    const preview = JSON.parse(renderOrdersResponse(await listOrders(ctx, principals.editor, { projectId: 'All Projects', limit: 5, preview: true })));
    assert.equal(preview.orders, null);
    for (const o of preview.order_previews) {
      assert.deepEqual(Object.keys(o).sort(), ['analysis_list', 'asset_preview_url', 'creation_time', 'order_id', 'order_state', 'order_title', 'project_name', 'tags']);
    }
  });

  it('property: the page the database assembles is byte for byte the page spliced from rows', async () => {
    // Text JSON.stringify and to_json must escape alike: quotes, backslashes, control characters, non-ASCII.
    const odd = toOrderRow(ACME.id, {
      order_id: 'odd-"\\-\u0001:\n𝄞', username: 'Admin', email: USERS.admin.email, order_state: 'In Progress', order_title: 'a\u0001\u0002"\n\t é 𝄞 \u2028',
      asset_id: 'a', asset_name: 'x', asset_last_modified_timestamp: '1', ordered_by: null, creation_time: '2031-01-01T00:00:00Z',
      asset_preview_key: `orgs/${ACME.id}/odd/preview.png`, project_id: ACME.projects.zeta.id,
      // The second layer's key is outside the organization's prefix: no entry, on both paths.
      layers: [{ layer_name: 'L "1" \\ \u0001\u001f\u007f é', key: `orgs/${ACME.id}/odd/l1.png` }, { layer_name: '', key: 'odd/l-2.png' },
        { layer_name: 'third', key: `orgs/${ACME.id}/odd/l-3.png` }],
    });
    await upsertOrders(getDb().db, [odd]);
    try {
      const now = 1_900_000_000;
      await fc.assert(
        fc.asyncProperty(
          fc.constantFrom(...NAMES),
          fc.constantFrom(...ALL_FILTERS),
          fc.array(fc.integer({ min: 1, max: 60 }), { minLength: 1, maxLength: 3 }),
          fc.boolean(),
          // The item cache: the one shared by every run (mostly warm), or one so small it holds a few items
          // (pages part read, part cached), or a fresh one (every item read).
          fc.constantFrom('shared', 'tiny', 'fresh'),
          async (name, filter, limits, preview, cache) => {
            // The tiny cache keeps no bodies either, so every read assembles from its items.
            const listing =
              cache === 'shared'
                ? ctx
                : { ...ctx, pageItems: new PageItemCache(cache === 'tiny' ? { maxBytes: 6_000 } : {}), pageBodies: new PageBodyMemo(cache === 'tiny' ? 1 : undefined) };
            let token: string | null = null;
            let page = 0;
            do {
              const options: ListOrdersOptions = { projectId: filter, limit: limits[page % limits.length]!, pageToken: token, preview, nowSeconds: now };
              let spliced: string;
              try {
                spliced = renderOrdersResponse(await listOrders(ctx, principals[name], options));
              } catch (err) {
                assert.ok(err instanceof OrderScopeNotFoundError);
                await assert.rejects(listOrdersBody(listing, principals[name], options), OrderScopeNotFoundError);
                return;
              }
              const assembled: string = (await listOrdersBody(listing, principals[name], options)).toString('utf8');
              assert.equal(assembled, spliced);
              // Read again: now from the items the first read left in the cache.
              assert.equal((await listOrdersBody(listing, principals[name], options)).toString('utf8'), spliced);
              token = (JSON.parse(assembled) as { next_page_token: string | null }).next_page_token;
              page += 1;
            } while (token && page < 6);
          },
        ),
        { numRuns: 40 },
      );
      const admin = JSON.parse((await listOrdersBody(ctx, principals.admin, { projectId: 'All Projects', limit: 1, nowSeconds: now })).toString('utf8'));
      assert.equal(admin.orders[0].order_id, odd.order_id, 'the odd order is the newest, so every property run with it sees it');
      assert.equal(admin.orders[0].layers_info.length, 2);
    } finally {
      await getDb().db.deleteFrom('orders').where('order_id', '=', odd.order_id).execute();
    }
  });

  it('lists an order changed after its item was cached as it is now, and reads only what changed', async () => {
    const now = 1_900_000_000;
    const options: ListOrdersOptions = { projectId: 'All Projects', limit: 5, nowSeconds: now };
    const listing = { ...ctx, pageItems: new PageItemCache(), pageBodies: new PageBodyMemo() };
    const input = {
      order_id: 'cached-then-changed', username: 'Admin', email: USERS.admin.email, order_state: 'In Progress' as const, order_title: 'first title',
      asset_id: 'a', asset_name: 'x.png', asset_last_modified_timestamp: '1', ordered_by: null, creation_time: '2032-01-01T00:00:00Z',
      asset_preview_key: `orgs/${ACME.id}/cached/preview.png`, project_id: ACME.projects.zeta.id, layers: [],
    };
    await upsertOrders(getDb().db, [toOrderRow(ACME.id, input)]);
    try {
      // Asked for the first time: read once, nothing kept (a walk's pages are asked for once each).
      const once = (await listOrdersBody(listing, principals.admin, options)).toString('utf8');
      assert.equal(listing.pageItems.size, 0);
      // Asked for again: its items are kept.
      const first = JSON.parse((await listOrdersBody(listing, principals.admin, options)).toString('utf8')) as { orders: Array<{ order_id: string; order_title: string }> };
      assert.equal(JSON.stringify(first), JSON.stringify(JSON.parse(once)));
      assert.equal(first.orders[0]!.order_title, 'first title');
      assert.equal(listing.pageItems.size, 5);
      // The same order written again (a new row version): its cached item must not be served.
      await upsertOrders(getDb().db, [toOrderRow(ACME.id, { ...input, order_title: 'second title é' })]);
      const second = (await listOrdersBody(listing, principals.admin, options)).toString('utf8');
      assert.equal(second, renderOrdersResponse(await listOrders(ctx, principals.admin, options)));
      assert.equal((JSON.parse(second) as typeof first).orders[0]!.order_title, 'second title é');
      assert.equal(listing.pageItems.size, 6, 'only the changed order was read again');
      // Read again unchanged: the kept body, the same bytes.
      const third = await listOrdersBody(listing, principals.admin, options);
      assert.equal(third.toString('utf8'), second);
      assert.equal(await listOrdersBody(listing, principals.admin, options), third, 'the body made from the same inputs is kept');
      // Another signing time: the same page with other URLs, not the kept body (asked twice: once read once).
      await listOrdersBody(listing, principals.admin, { ...options, nowSeconds: now + 3600 });
      const later = (await listOrdersBody(listing, principals.admin, { ...options, nowSeconds: now + 3600 })).toString('utf8');
      assert.equal(later, renderOrdersResponse(await listOrders(ctx, principals.admin, { ...options, nowSeconds: now + 3600 })));
      assert.notEqual(later, second);
    } finally {
      await getDb().db.deleteFrom('orders').where('order_id', '=', input.order_id).execute();
    }
  });

  it('finds a single order under the same visibility', async () => {
    const zetaOrder = (await listOrders(ctx, principals.viewer, { projectId: ACME.projects.zeta.id, limit: 1 })).orders[0]!.orderId;
    const viewerView = await findVisibleOrder(ctx, principals.viewer, zetaOrder);
    assert.equal(viewerView?.project?.userRole, 'viewer');
    assert.equal(await findVisibleOrder(ctx, principals.loner, zetaOrder), null);
    assert.equal(await findVisibleOrder(ctx, principals.other, zetaOrder), null);
    const lonerOwn = (await listOrders(ctx, principals.loner, { projectId: 'Personal Certificates', limit: 1 })).orders[0]!.orderId;
    assert.equal((await findVisibleOrder(ctx, principals.loner, lonerOwn))?.project, null);
    assert.ok(await findVisibleOrder(ctx, principals.admin, lonerOwn));
    assert.equal(await findVisibleOrder(ctx, principals.editor, lonerOwn), null);
    assert.equal(await findVisibleOrder(ctx, principals.admin, 'no-such-order'), null);
  });
});

// The temporary object storage folders this file made (test/helpers/fixtures.ts).
after(removeTemporaryObjectStorages);
