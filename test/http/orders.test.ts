import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { setImmediate } from 'node:timers/promises';
import { catalogues } from '../../src/i18n/index.js';
import { startApi, type Api } from './api-harness.js';
import { describeOnEachDatabase } from '../helpers/database.js';
import { ACME, ACME_ORDER_COUNT, GLOBEX, TINY_PNG_BASE64, USERS, type FixtureUserName } from '../helpers/fixtures.js';
import { expectedOrderIds, expectedStats, principalOf } from '../helpers/orders-oracle.js';
import { toOrderRow } from '../../src/domain/orders/order-document.js';
import { upsertOrders } from '../../src/domain/orders/order.repository.js';

const OP = 'get_orders_v1_orders_get';
const NAMES: FixtureUserName[] = ['admin', 'editor', 'viewer', 'loner', 'other'];
const ORDER_KEYS = [
  'analysis_failed_items', 'analysis_list', 'annotations', 'asset_id', 'asset_last_modified_timestamp', 'asset_name', 'asset_preview_url',
  'confidence', 'creation_time', 'email', 'layers_info', 'order_id', 'order_state', 'order_title', 'ordered_by', 'project', 'remediation',
  'review_timestamp', 'reviewed_by', 'tags', 'username',
];
const PREVIEW_KEYS = ['analysis_list', 'asset_preview_url', 'creation_time', 'order_id', 'order_state', 'order_title', 'project_name', 'tags'];

interface Page {
  order_stats: Record<string, number>;
  project_names: string[];
  next_page_token: string | null;
  orders: Array<Record<string, unknown>> | null;
  order_previews: Array<Record<string, unknown>> | null;
}

const q = (params: Record<string, string | number | boolean | null | undefined>) =>
  `/v1/orders?${new URLSearchParams(Object.entries(params).filter(([, v]) => v != null).map(([k, v]) => [k, String(v)])).toString()}`;

describeOnEachDatabase('GET /v1/orders', (getDb) => {
  let api: Api;

  before(async () => {
    api = await startApi(getDb());
  });
  after(() => api.close());

  /** One page, checked against the OpenAPI document. */
  async function page(as: FixtureUserName, params: Parameters<typeof q>[0], headers: Record<string, string> = {}): Promise<Page> {
    const res = await api.get(q(params), as, headers);
    assert.equal(res.statusCode, 200, res.body);
    assert.match(String(res.headers['content-type']), /^application\/json/);
    const body = res.json() as Page;
    api.openapi.assertResponse(OP, 200, body);
    return body;
  }

  async function walk(as: FixtureUserName, projectId: string, limit: number): Promise<string[]> {
    const ids: string[] = [];
    let token: string | null = null;
    let n = 0;
    do {
      const body: Page = await page(as, { project_id: projectId, limit, page_token: token, preview: n % 3 === 2 });
      const items = body.orders ?? body.order_previews ?? [];
      if (n > 0) assert.ok(items.length > 0, 'a token never leads to an empty page');
      ids.push(...items.map((o) => o.order_id as string));
      token = body.next_page_token;
      n += 1;
    } while (token);
    return ids;
  }

  it('walks every visible order once, in order, at limits 1, 7, 200, 1000 and the exact visible count', async () => {
    for (const name of ['admin', 'editor', 'loner'] as const) {
      const principal = await principalOf(api.database, name);
      for (const filter of ['All Projects', 'Personal Certificates']) {
        const expected = await expectedOrderIds(api.database, principal, filter);
        for (const limit of [1, 7, 200, 1000, expected.length]) {
          if (limit < 1) continue;
          const ids = await walk(name, filter, limit);
          assert.equal(new Set(ids).size, ids.length, 'no duplicates');
          assert.deepEqual(ids, expected, `${name} ${filter} limit ${limit}`);
        }
      }
    }
  });

  it('returns every order that existed at the start exactly once while another task inserts orders', { timeout: 120_000 }, async () => {
    const principal = await principalOf(api.database, 'editor');
    const expected = await expectedOrderIds(api.database, principal, 'All Projects');
    let walking = true;
    let inserted = 0;
    // Runs beside the walk, not between its pages: new orders in the editor's project and personal scope.
    let failure: unknown = null;
    // Bounded, and yielding after each insert, so that on a loaded machine the walk is not starved by the inserts.
    const maxArrivals = 300;
    const inserter = (async () => {
      while (walking && inserted < maxArrivals) {
        const n = inserted + 1;
        const id = `arrival-${n}`;
        await upsertOrders(api.database.db, [
          toOrderRow(ACME.id, {
            order_id: id, username: 'Editor', email: USERS.editor.email, order_state: 'In Progress', order_title: id, asset_id: id,
            asset_name: `${id}.psd`, asset_last_modified_timestamp: '1767225600', ordered_by: null,
            creation_time: new Date(Date.UTC(2026, 11, 1) + n * 1000).toISOString(),
            project_id: n % 2 === 0 ? ACME.projects.zeta.id : null,
          }),
        ]);
        inserted = n;
        await setImmediate();
      }
    })().catch((err: unknown) => {
      failure = err;
    });
    const ids: string[] = [];
    let firstPage: string[] = [];
    try {
      let token: string | null = null;
      let pages = 0;
      do {
        // However the two tasks are scheduled, at least one order arrives before each page is read.
        while (inserted <= pages && inserted < maxArrivals) {
          if (failure) throw failure;
          await setImmediate();
        }
        const arrivedBefore = inserted;
        const body: Page = await page('editor', { project_id: 'All Projects', limit: 3, page_token: token });
        const pageIds = body.orders!.map((o) => o.order_id as string);
        if (token !== null) {
          // After the first page, only arrivals older than the cursor can show: ones that existed before it.
          const firstPageArrivals = firstPage.filter((id) => id.startsWith('arrival-')).map((id) => Number(id.slice(8)));
          const oldestOnFirstPage = Math.min(...firstPageArrivals);
          for (const id of pageIds.filter((x) => x.startsWith('arrival-'))) {
            assert.ok(Number(id.slice(8)) < oldestOnFirstPage, `${id} arrived after the walk's first page and must not appear`);
          }
        } else {
          firstPage = pageIds;
          assert.ok(arrivedBefore >= 1);
        }
        ids.push(...pageIds);
        token = body.next_page_token;
        pages += 1;
      } while (token);
      assert.ok(pages > 3 && inserted >= pages, `${inserted} orders arrived during ${pages} pages`);
      assert.equal(new Set(ids).size, ids.length, 'no duplicates');
      assert.deepEqual(ids.slice(0, 3).filter((id) => id.startsWith('arrival-')).length > 0, true, 'the first page shows what arrived before it');
      // Every order of the start exactly once, in order, whatever arrived meanwhile.
      assert.deepEqual(ids.filter((id) => !id.startsWith('arrival-')), expected);
      walking = false;
      await inserter;
      const after = await page('editor', { project_id: 'All Projects', limit: 1000 });
      assert.equal(after.order_stats.total_orders, expected.length + inserted, 'the counters saw every arrival');
    } finally {
      walking = false;
      await inserter;
      await api.database.db.deleteFrom('orders').where('order_id', 'like', 'arrival-%').execute();
    }
  });

  it('applies the visibility matrix: stats equal a real count, invisible projects are 404', async () => {
    const projects = [ACME.projects.zeta.id, ACME.projects.beta.id, ACME.projects.ecran.id, GLOBEX.projects.alpha.id];
    const visible: Record<FixtureUserName, string[]> = {
      admin: [ACME.projects.zeta.id, ACME.projects.beta.id, ACME.projects.ecran.id],
      editor: [ACME.projects.zeta.id, ACME.projects.beta.id],
      viewer: [ACME.projects.zeta.id],
      loner: [],
      other: [GLOBEX.projects.alpha.id],
    };
    for (const name of NAMES) {
      const principal = await principalOf(api.database, name);
      for (const filter of ['All Projects', 'Personal Certificates', ...projects]) {
        if (filter.length === 36 && !visible[name].includes(filter)) {
          const res = await api.get(q({ project_id: filter }), name);
          assert.equal(res.statusCode, 404, `${name} ${filter}`);
          assert.deepEqual(res.json(), { detail: 'Project not found' });
          api.openapi.assertResponse(OP, 404, res.json());
          continue;
        }
        const body = await page(name, { project_id: filter, limit: 1000 });
        assert.deepEqual(body.order_stats, await expectedStats(api.database, principal, filter), `${name} ${filter}`);
        assert.deepEqual(body.orders!.map((o) => o.order_id), await expectedOrderIds(api.database, principal, filter), `${name} ${filter}`);
        for (const o of body.orders!) {
          // Nothing of another organization, ever.
          assert.ok((o.email as string).endsWith(name === 'other' ? '@globex.test' : '@acme.test'));
        }
      }
    }
    for (const filter of ['not-a-uuid', 'all projects', 'ALL PROJECTS', '00000000-0000-4000-8000-000000000000', ' ']) {
      const res = await api.get(q({ project_id: filter }), 'admin');
      assert.equal(res.statusCode, 404, filter);
      assert.equal(typeof res.json().detail, 'string');
    }
  });

  it('lists project names for All Projects only', async () => {
    assert.deepEqual((await page('admin', { project_id: 'All Projects', limit: 1 })).project_names, ['Personal Certificates', 'beta', 'Écran', 'Zeta']);
    assert.deepEqual((await page('viewer', { project_id: 'All Projects', limit: 1 })).project_names, ['Personal Certificates', 'Zeta']);
    assert.deepEqual((await page('loner', { project_id: 'All Projects', limit: 1 })).project_names, ['Personal Certificates']);
    assert.deepEqual((await page('admin', { project_id: 'Personal Certificates', limit: 1 })).project_names, []);
    assert.deepEqual((await page('admin', { project_id: ACME.projects.beta.id, limit: 1 })).project_names, []);
  });

  it('sends every Order field with its default and nothing else; orders set, order_previews null', async () => {
    const body = await page('editor', { project_id: 'All Projects' });
    assert.equal(body.order_previews, null);
    assert.equal(body.next_page_token, null);
    assert.ok(body.orders!.length > 0);
    for (const o of body.orders!) {
      assert.deepEqual(Object.keys(o).sort(), ORDER_KEYS);
      const project = o.project as { id: string; name: string; userRole: string } | null;
      if (project) {
        assert.deepEqual(Object.keys(project).sort(), ['id', 'name', 'userRole']);
        assert.equal(project.userRole, project.id === ACME.projects.beta.id ? 'admin' : 'editor');
      } else {
        assert.equal(o.email, USERS.editor.email, 'the only personal orders an editor sees are their own');
      }
      assert.ok(Array.isArray(o.layers_info));
      for (const l of o.layers_info as Array<{ layer_name: string; layer_url: string }>) assert.match(l.layer_url, /^https:\/\/api\.certdesk\.test\/objects\/orgs\/[0-9a-f-]{36}\/layers\/.+\?expires=\d+&signature=/);
      assert.ok(o.asset_preview_url === null || /^https:\/\/api\.certdesk\.test\/objects\/orgs\/[0-9a-f-]{36}\/previews\//.test(o.asset_preview_url as string), String(o.asset_preview_url));
      assert.match(o.creation_time as string, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    }
    const plain = body.orders!.find((o) => (o.annotations as unknown[]).length === 0)!;
    assert.deepEqual(plain.analysis_failed_items, []);
    assert.ok(body.orders!.some((o) => o.asset_preview_url === null));
    assert.ok(body.orders!.some((o) => o.ordered_by === null));
    assert.ok(body.orders!.some((o) => o.reviewed_by === null && o.review_timestamp === null));
  });

  it('preview=true answers OrderPreview items in order_previews with orders null', async () => {
    for (const preview of ['true', '1', 'yes', 'On', 't', 'Y']) {
      const res = await api.get(`/v1/orders?project_id=All%20Projects&limit=3&preview=${preview}`, 'admin');
      assert.equal(res.statusCode, 200, preview);
      const body = res.json() as Page;
      api.openapi.assertResponse(OP, 200, body);
      assert.equal(body.orders, null);
      assert.equal(body.order_previews!.length, 3);
      for (const o of body.order_previews!) assert.deepEqual(Object.keys(o).sort(), PREVIEW_KEYS);
    }
    const personal = await page('loner', { project_id: 'Personal Certificates', preview: true, limit: 2 });
    assert.ok(personal.order_previews!.every((o) => o.project_name === null));
    const zeta = await page('viewer', { project_id: ACME.projects.zeta.id, preview: true, limit: 2 });
    assert.ok(zeta.order_previews!.every((o) => o.project_name === 'Zeta'));
    // preview and limit may change between the pages of one walk.
    const next = await page('viewer', { project_id: ACME.projects.zeta.id, preview: false, limit: 3, page_token: zeta.next_page_token });
    assert.equal(next.orders!.length, 3);
  });

  it('validates limit and preview (422, never clamped) and requires project_id', async () => {
    const cases: Array<[string, Array<{ type: string; loc: string[] }>]> = [
      ['/v1/orders', [{ type: 'missing', loc: ['query', 'project_id'] }]],
      ['/v1/orders?project_id=All%20Projects&limit=0', [{ type: 'greater_than_equal', loc: ['query', 'limit'] }]],
      ['/v1/orders?project_id=All%20Projects&limit=1001', [{ type: 'less_than_equal', loc: ['query', 'limit'] }]],
      ['/v1/orders?project_id=All%20Projects&limit=ten', [{ type: 'int_parsing', loc: ['query', 'limit'] }]],
      ['/v1/orders?project_id=All%20Projects&preview=maybe', [{ type: 'bool_parsing', loc: ['query', 'preview'] }]],
      ['/v1/orders?limit=0&preview=x', [
        { type: 'missing', loc: ['query', 'project_id'] },
        { type: 'bool_parsing', loc: ['query', 'preview'] },
        { type: 'greater_than_equal', loc: ['query', 'limit'] },
      ]],
    ];
    for (const [url, expected] of cases) {
      const res = await api.get(url, 'admin');
      assert.equal(res.statusCode, 422, url);
      api.openapi.assertResponse(OP, 422, res.json());
      const got = (res.json() as { detail: Array<{ type: string; loc: string[] }> }).detail.map((d) => ({ type: d.type, loc: d.loc }));
      assert.deepEqual(
        got.sort((a, b) => a.loc.join().localeCompare(b.loc.join())),
        expected.sort((a, b) => a.loc.join().localeCompare(b.loc.join())),
        url,
      );
    }
    assert.equal((await page('admin', { project_id: 'All Projects', limit: 1000 })).orders!.length, ACME_ORDER_COUNT);
    assert.equal((await page('admin', { project_id: 'All Projects' })).orders!.length, ACME_ORDER_COUNT, 'default limit 200');
  });

  it('documents the operation with the interface\'s parameters and responses', () => {
    const op = api.openapi.operation(OP) as { parameters: Array<{ name: string; in: string; required: boolean; schema: Record<string, unknown> }>; responses: Record<string, unknown> };
    const params = Object.fromEntries(op.parameters.map((p) => [`${p.in}:${p.name}`, { required: p.required, schema: p.schema }]));
    assert.deepEqual(Object.keys(params).sort(), ['header:lang', 'query:limit', 'query:page_token', 'query:preview', 'query:project_id']);
    assert.equal(params['query:project_id']!.required, true);
    assert.deepEqual(params['query:limit']!.schema, { type: 'integer', minimum: 1, maximum: 1000, default: 200 });
    assert.deepEqual(params['query:preview']!.schema, { type: 'boolean', default: false });
    assert.deepEqual(Object.keys(op.responses).sort(), ['200', '400', '401', '403', '404', '422', '431', '500', '503']);
  });

  it('checks authentication before parameters', async () => {
    const res = await api.get('/v1/orders', null);
    assert.equal(res.statusCode, 401);
    assert.deepEqual(res.json(), { detail: 'Not authenticated' });
    assert.equal(res.headers['www-authenticate'], 'Bearer');
  });

  it('refuses tampered, foreign-user, foreign-project and garbage page tokens with 422 at [query, page_token]', async () => {
    const first = await page('editor', { project_id: 'All Projects', limit: 2 });
    const token = first.next_page_token!;
    const adminToken = (await page('admin', { project_id: 'All Projects', limit: 2 })).next_page_token!;
    const zetaToken = (await page('editor', { project_id: ACME.projects.zeta.id, limit: 2 })).next_page_token!;
    const globexToken = (await page('other', { project_id: 'All Projects', limit: 2 })).next_page_token!;
    const [body, sig] = token.split('.') as [string, string];
    const tampered = `${body}.${sig.startsWith('A') ? 'B' : 'A'}${sig.slice(1)}`;
    const bad: Array<[string, FixtureUserName, string]> = [
      ['tampered', 'editor', tampered],
      ['another user', 'editor', adminToken],
      ['another project filter', 'editor', zetaToken],
      ['another organization', 'editor', globexToken],
      ['garbage', 'editor', 'hello'],
      ['empty parts', 'editor', '.'],
      ['not base64', 'editor', '!!!.###'],
    ];
    for (const [label, as, pageToken] of bad) {
      for (const lang of ['en', 'fr'] as const) {
        const res = await api.get(q({ project_id: 'All Projects', page_token: pageToken }), as, { lang });
        assert.equal(res.statusCode, 422, label);
        api.openapi.assertResponse(OP, 422, res.json());
        const [detail] = (res.json() as { detail: Array<{ type: string; loc: string[]; msg: string; input: string }> }).detail;
        assert.deepEqual(detail!.loc, ['query', 'page_token'], label);
        assert.equal(detail!.type, 'value_error');
        assert.equal(detail!.input, pageToken);
        assert.equal(detail!.msg, catalogues[lang]['validation.invalid_page_token'], `${label} in ${lang}`);
      }
    }
    // The genuine token still works, and the same project filter under another user does not.
    assert.ok((await page('editor', { project_id: 'All Projects', limit: 2, page_token: token })).orders!.length > 0);
    const zetaAsViewer = await api.get(q({ project_id: ACME.projects.zeta.id, page_token: zetaToken }), 'viewer');
    assert.equal(zetaAsViewer.statusCode, 422);
  });

  it('hands out the same presigned URL within a time window, and lets browsers cache the object until it expires', async () => {
    const urls = async () => (await page('admin', { project_id: 'All Projects', limit: 10 })).orders!.map((o) => o.asset_preview_url as string | null);
    const first = await urls();
    const second = await urls();
    const ttl = api.app.services.config.presignTtlSeconds;
    for (const [i, u] of first.entries()) {
      if (u === null) continue;
      const a = new URL(u);
      const b = new URL(second[i]!);
      // Same window: the very same URL; at most one window boundary between two requests: the next step.
      if (u !== second[i]) assert.equal(Number(b.searchParams.get('expires')) - Number(a.searchParams.get('expires')), Math.min(60, Math.floor(ttl / 10)), u);
      const res = await api.app.inject({ method: 'GET', url: `${b.pathname}${b.search}` });
      assert.equal(res.statusCode, 200);
      const maxAge = Number(/^private, max-age=(\d+)$/.exec(String(res.headers['cache-control']))?.[1]);
      assert.ok(maxAge > 0 && maxAge <= ttl, `Cache-Control ${String(res.headers['cache-control'])}`);
    }
    assert.ok(first.some((u) => u !== null));
  });

  it('serves presigned URLs: valid 200 image/png, tampered or expired 403, missing object 404', async () => {
    const body = await page('admin', { project_id: 'All Projects', limit: 10 });
    const withPreview = body.orders!.find((o) => o.asset_preview_url)!;
    const url = new URL(withPreview.asset_preview_url as string);
    const path = `${url.pathname}${url.search}`;
    const ok = await api.app.inject({ method: 'GET', url: path });
    assert.equal(ok.statusCode, 200, ok.body);
    assert.equal(ok.headers['content-type'], 'image/png');
    assert.deepEqual(ok.rawPayload, Buffer.from(TINY_PNG_BASE64, 'base64'));
    const layer = body.orders!.flatMap((o) => o.layers_info as Array<{ layer_url: string }>)[0]!;
    const layerUrl = new URL(layer.layer_url);
    assert.equal((await api.app.inject({ method: 'GET', url: `${layerUrl.pathname}${layerUrl.search}` })).statusCode, 200);

    const signature = url.searchParams.get('signature')!;
    const expires = url.searchParams.get('expires')!;
    const forbidden = [
      `${url.pathname}?expires=${expires}&signature=${signature.startsWith('A') ? 'B' : 'A'}${signature.slice(1)}`,
      `${url.pathname}?expires=${Number(expires) + 3600}&signature=${signature}`,
      `${url.pathname.replace('.png', '-other.png')}?expires=${expires}&signature=${signature}`,
      `${url.pathname}?expires=${expires}`,
      `${url.pathname}`,
      `${url.pathname}?expires=abc&signature=${signature}`,
    ];
    const presigner = api.app.services.objectUrls;
    const key = url.pathname.replace(/^\/objects\//, '');
    const expired = new URL(presigner.presign(key, Math.floor(Date.now() / 1000) - 2 * api.app.services.config.presignTtlSeconds));
    forbidden.push(`${expired.pathname}${expired.search}`);
    for (const p of forbidden) {
      const res = await api.app.inject({ method: 'GET', url: p });
      assert.equal(res.statusCode, 403, p);
      assert.equal(typeof res.json().detail, 'string');
    }
    const missing = new URL(presigner.presign('previews/no-such-object.png'));
    const res = await api.app.inject({ method: 'GET', url: `${missing.pathname}${missing.search}` });
    assert.equal(res.statusCode, 404);
    assert.equal(typeof res.json().detail, 'string');
  });
});
