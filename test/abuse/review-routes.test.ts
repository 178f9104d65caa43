/**
 * The cross-tenant property extended to the review routes (docs/review.md), over a generated world of
 * several organizations (tenant-world.ts) plus a certifier organization:
 * - nobody without the reviewer capability reaches anything under /review: every route, with any order id
 *   of any organization, answers 404 (pages and JSON alike) and mentions no other organization;
 * - a reviewer sees what a review needs and nothing more: the queue lists only finished `In Progress`
 *   orders and names no user, client, project or other state's order; each review page shows its order and
 *   never another user's e-mail or name, a client id, another order's id or object key, or another
 *   project; a reviewer inside a customer organization is refused (403) on that organization's orders.
 *
 * Runs on PGlite always and on PostgreSQL when TEST_DATABASE_URL is set. TENANT_SEED replays a world.
 */
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { after, before, it } from 'node:test';
import fc from 'fast-check';
import type { FastifyInstance } from 'fastify';
import { grantReviewer } from '../../src/domain/review/reviewer-admin.js';
import { loadSeed } from '../../src/domain/seed/seed.js';
import { buildTestApp } from '../helpers/app.js';
import { describeOnEachDatabase } from '../helpers/database.js';
import { snapshotTables } from '../helpers/db-snapshot.js';
import { temporaryObjectStorage } from '../helpers/fixtures.js';
import { apiTestConfig } from '../http/api-harness.js';
import { FORM_HEADERS, form, signIn, type CookieJar } from '../web/web-test-helpers.js';
import { tenantWorld, type Tenant, type TenantWorld } from './tenant-world.js';

const SEED = process.env.TENANT_SEED ? Number(process.env.TENANT_SEED) : Date.now() % 2 ** 31;
const PASSWORD = 'review-property-password';
const CERTIFIER = { id: 'ce000000-0000-4000-8000-000000000001', email: 'rita@certifier.example', username: 'Rita Certifier' };
const NO_CLAIM = '00000000-0000-4000-8000-000000000000';

interface Session {
  email: string;
  jar: CookieJar;
  csrf: string;
}

describeOnEachDatabase('review routes: reviewers see only what a review needs, others nothing', (getDb) => {
  let app: FastifyInstance;
  let dir: string;
  let world: TenantWorld;
  let reviewer: Session;
  /** A reviewer who is also the first administrator of the first organization. */
  let inHouse: Session;
  let others: Array<{ tenant: Tenant; session: Session }>;

  const open = async (email: string): Promise<Session> => {
    const { jar } = await signIn(app, email, PASSWORD);
    const page = await app.inject({ method: 'GET', url: '/orders', headers: { cookie: jar.header() } });
    const csrf = /name="_csrf" value="([^"]+)"/.exec(page.body)?.[1];
    assert.ok(csrf, `${email} signed in`);
    return { email, jar, csrf };
  };
  const get = (s: Session, url: string) => app.inject({ method: 'GET', url, headers: { cookie: s.jar.header() } });
  const orderIdsOf = (t: Tenant) => t.orderIds;
  const stateOf = (orderId: string) => world.seed.organizations.flatMap((o) => o.orders ?? []).find((o) => o.order_id === orderId)!;
  const allOrderIds = () => world.tenants.flatMap(orderIdsOf);

  before(async () => {
    world = fc.sample(tenantWorld(), { seed: SEED, numRuns: 1 })[0]!;
    for (const org of world.seed.organizations) for (const u of org.users ?? []) u.password = PASSWORD;
    world.seed.organizations.push({ id: CERTIFIER.id, name: 'Certifier', users: [{ email: CERTIFIER.email, username: CERTIFIER.username, is_admin: true, password: PASSWORD }] });
    const storage = temporaryObjectStorage();
    dir = storage.dir;
    await loadSeed(getDb().db, storage.storage, world.seed);
    const first = world.tenants[0]!.users[0]!;
    await grantReviewer(getDb().db, CERTIFIER.email);
    await grantReviewer(getDb().db, first.email);
    app = await buildTestApp({ config: apiTestConfig(dir), database: getDb(), storage: storage.storage });
    await app.ready();
    reviewer = await open(CERTIFIER.email);
    inHouse = await open(first.email);
    others = [];
    for (const tenant of world.tenants) {
      for (const user of tenant.users) if (user.email !== first.email) others.push({ tenant, session: await open(user.email) });
    }
  });
  after(async () => {
    await app?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('every /review route answers 404 to users without the capability, whatever order they name, and nothing changes', async (t) => {
    t.diagnostic(`seed ${SEED} (replay with TENANT_SEED=${SEED}); ${others.length} non-reviewers, ${allOrderIds().length} orders`);
    const unchanged = await snapshotTables(getDb().db);
    let probes = 0;
    for (const { tenant, session } of others) {
      const foreign = world.tenants.filter((x) => x !== tenant);
      const ids = ['nobody-order', ...allOrderIds().filter((_, i) => i % 3 === probes % 3)];
      const answers = [await get(session, '/review'), await get(session, `/review?organization=${tenant.id}&came_back=1`)];
      for (const id of ids) {
        const path = `/review/orders/${encodeURIComponent(id)}`;
        answers.push(await get(session, path));
        answers.push(await app.inject({ method: 'POST', url: `${path}/decision`, headers: { ...FORM_HEADERS, cookie: session.jar.header() }, payload: form({ _csrf: session.csrf, decision: 'certify', note: 'n', claim_id: NO_CLAIM }) }));
        answers.push(await app.inject({ method: 'POST', url: `${path}/claim/release`, headers: { ...FORM_HEADERS, cookie: session.jar.header() }, payload: form({ _csrf: session.csrf, claim_id: NO_CLAIM }) }));
        for (const [method, suffix, body] of [['POST', 'claim/renew', { claim_id: NO_CLAIM }], ['PUT', 'edits', { claim_id: NO_CLAIM, confidence: 1 }]] as const) {
          answers.push(await app.inject({ method, url: `${path}/${suffix}`, headers: { 'content-type': 'application/json', cookie: session.jar.header(), 'x-csrf-token': session.csrf }, payload: JSON.stringify(body) }));
        }
      }
      for (const answer of answers) {
        probes++;
        assert.equal(answer.statusCode, 404, `${session.email} ${answer.raw.req.method} ${answer.raw.req.url}: ${answer.statusCode}`);
        // The page's language links repeat the requested path: what the caller sent is not a leak.
        const sent = decodeURIComponent(new URL(answer.raw.req.url ?? '/', 'http://x').pathname.split('/')[3] ?? '');
        const body = sent ? answer.body.split(sent).join('<sent>') : answer.body;
        const leaks = foreign.flatMap((x) => x.secrets.filter((s) => body.includes(s)));
        assert.deepEqual(leaks, [], `${session.email} ${answer.raw.req.url} mentions another organization`);
      }
    }
    assert.deepEqual(await snapshotTables(getDb().db), unchanged, 'no refused review request changed the database');
    t.diagnostic(`${probes} requests, all 404`);
  });

  it('a reviewer inside a customer organization is refused every decision, claim and edit on its orders (403), and nothing changes', async (t) => {
    const own = world.tenants[0]!;
    const unchanged = await snapshotTables(getDb().db);
    let probes = 0;
    for (const orderId of own.orderIds) {
      const path = `/review/orders/${encodeURIComponent(orderId)}`;
      const answers = [
        await app.inject({ method: 'POST', url: `${path}/decision`, headers: { ...FORM_HEADERS, cookie: inHouse.jar.header() }, payload: form({ _csrf: inHouse.csrf, decision: 'certify', note: 'n', claim_id: NO_CLAIM }) }),
        await app.inject({ method: 'POST', url: `${path}/certificate/revoke`, headers: { ...FORM_HEADERS, cookie: inHouse.jar.header() }, payload: form({ _csrf: inHouse.csrf, reason: 'r' }) }),
        await app.inject({ method: 'POST', url: `${path}/claim/renew`, headers: { 'content-type': 'application/json', cookie: inHouse.jar.header(), 'x-csrf-token': inHouse.csrf }, payload: JSON.stringify({ claim_id: NO_CLAIM }) }),
        await app.inject({ method: 'PUT', url: `${path}/edits`, headers: { 'content-type': 'application/json', cookie: inHouse.jar.header(), 'x-csrf-token': inHouse.csrf }, payload: JSON.stringify({ claim_id: NO_CLAIM, confidence: 1 }) }),
      ];
      for (const answer of answers) {
        probes++;
        // Revoking an order without a certificate is 404 whoever asks; everything else names the reason.
        const allowed = answer.raw.req.url?.endsWith('/certificate/revoke') ? [403, 404] : [403];
        assert.ok(allowed.includes(answer.statusCode), `${inHouse.email} ${answer.raw.req.method} ${answer.raw.req.url}: ${answer.statusCode}`);
      }
      // Releasing a claim of one's own organization changes nothing either (it redirects to the queue).
      const release = await app.inject({ method: 'POST', url: `${path}/claim/release`, headers: { ...FORM_HEADERS, cookie: inHouse.jar.header() }, payload: form({ _csrf: inHouse.csrf, claim_id: NO_CLAIM }) });
      assert.ok(release.statusCode < 500, `${path}/claim/release: ${release.statusCode}`);
    }
    assert.deepEqual(await snapshotTables(getDb().db), unchanged, 'no refused review request changed the database');
    t.diagnostic(`${probes} refused requests on ${own.orderIds.length} orders of the reviewer's own organization`);
  });

  it('the queue lists only finished In Progress orders and names no user, client or project', async () => {
    for (const s of [reviewer, inHouse]) {
      const page = await get(s, '/review');
      assert.equal(page.statusCode, 200);
      page.body = page.body.split(s.email).join('<me>');
      const listed = [...page.body.matchAll(/<tr data-order-id="([^"]+)"/g)].map((m) => m[1]!);
      const own = s === inHouse ? world.tenants[0]! : null;
      const expected = allOrderIds().filter((id) => stateOf(id).order_state === 'In Progress' && !(own && own.orderIds.includes(id)));
      assert.deepEqual([...listed].sort(), [...expected].sort(), s.email);
      for (const tenant of world.tenants) {
        const forbidden = [
          ...tenant.users.filter((u) => u.email !== s.email).flatMap((u) => [u.email, u.username, u.clientId]),
          ...tenant.projects.flatMap((p) => [p.id, p.name]),
          ...tenant.objectKeys,
          ...tenant.orderIds.filter((id) => !expected.includes(id)),
        ];
        assert.deepEqual(forbidden.filter((x) => page.body.includes(x)), [], `${s.email}'s queue`);
      }
    }
  });

  it('a review page shows its order only; the reviewer’s own organization is refused with the reason', async (t) => {
    let pages = 0;
    for (const tenant of world.tenants) {
      for (const orderId of tenant.orderIds) {
        const order = stateOf(orderId);
        for (const s of [reviewer, inHouse]) {
          const page = await get(s, `/review/orders/${encodeURIComponent(orderId)}`);
          if (s === inHouse && tenant === world.tenants[0]) {
            assert.equal(page.statusCode, 403, `${s.email} on own organization's ${orderId}`);
            assert.match(page.body, /separation of duties/);
            assert.ok(!page.body.includes(order.order_title), 'the refusal shows nothing of the order');
            continue;
          }
          assert.equal(page.statusCode, 200, `${s.email} ${orderId}`);
          pages++;
          const ownKeys = [order.asset_preview_key, ...(order.layers ?? []).map((l) => l.key)].filter((k): k is string => !!k);
          const project = tenant.projects.find((p) => p.id === order.project_id);
          const forbidden = [
            ...world.tenants.filter((x) => x !== tenant).flatMap((x) => x.secrets),
            ...tenant.users.filter((u) => u.email !== order.email && u.email !== s.email).flatMap((u) => [u.email, u.username]),
            ...tenant.users.map((u) => u.clientId),
            ...tenant.orderIds.filter((id) => id !== orderId),
            ...tenant.objectKeys.filter((k) => !ownKeys.includes(k)),
            ...tenant.projects.filter((p) => p !== project).map((p) => p.name),
            ...tenant.projects.map((p) => p.id),
          ];
          // The signed-in reviewer's own e-mail (navigation) is theirs to see.
          const body = page.body.split(s.email).join('<me>');
          assert.deepEqual(forbidden.filter((x) => body.includes(x)), [], `${s.email} review page of ${orderId}`);
        }
      }
    }
    // An order that does not exist is 404 for a reviewer too.
    assert.equal((await get(reviewer, '/review/orders/nobody-order')).statusCode, 404);
    t.diagnostic(`${pages} review pages checked`);
  });
});
