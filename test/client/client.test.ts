/**
 * @certdesk/client against the real application listening on a port (PGlite, and PostgreSQL when
 * TEST_DATABASE_URL is set), through a proxy that injects 429s, refused tokens and dropped connections.
 * The client's sleeps are recorded instead of waited (Retry-After is checked, no test waits for it).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  Certdesk,
  CertdeskConnectionError,
  NotFoundError,
  PermissionDeniedError,
  UnprocessableEntityError,
  verifyCertificate,
  type CertdeskOptions,
} from '../../clients/typescript/src/index.js';
import { certifyOrder } from '../helpers/certificates.js';
import { databaseTargets } from '../helpers/database.js';
import { ACME, ACME_ORDER_COUNT, USERS } from '../helpers/fixtures.js';
import { pngBytes } from '../helpers/images.js';
import { credentialsOf, seedManyOrders, startServedApi, type ServedApi } from './served-api.js';

const BULK_ORDERS = 10_000;

for (const target of databaseTargets()) {
  describe(`@certdesk/client on ${target.name}`, () => {
    let served: ServedApi;
    before(async () => {
      served = await startServedApi(target);
      await seedManyOrders(served.database, BULK_ORDERS);
    });
    after(async () => {
      await served?.close();
    });

    /** A client of a fixture user through the proxy; sleeps are recorded and skipped. */
    function client(name: keyof typeof USERS = 'admin', extra: Partial<CertdeskOptions> = {}): { client: Certdesk; sleeps: number[] } {
      const sleeps: number[] = [];
      served.proxy.fault = () => 'pass';
      const c = new Certdesk({
        ...credentialsOf(name, served.proxy.url),
        sleep: async (ms) => {
          sleeps.push(ms);
        },
        ...extra,
      });
      return { client: c, sleeps };
    }

    it('pages through every order exactly once, newest first', async () => {
      const { client: c } = client();
      const before = served.proxy.count('GET', '/v1/orders');
      const seen = new Set<string>();
      let previous = '';
      let total = 0;
      let pages = 0;
      for await (const page of c.orders.list({ projectId: 'All Projects', limit: 1000 }).pages()) {
        pages++;
        total = page.order_stats.total_orders;
        for (const order of page.orders!) {
          assert.ok(!seen.has(order.order_id), `${order.order_id} returned twice`);
          seen.add(order.order_id);
          assert.ok(previous === '' || order.creation_time <= previous, 'newest first');
          previous = order.creation_time;
        }
      }
      assert.equal(seen.size, BULK_ORDERS + ACME_ORDER_COUNT);
      assert.equal(total, seen.size);
      assert.equal(pages, Math.ceil(seen.size / 1000));
      assert.equal(served.proxy.count('GET', '/v1/orders') - before, pages);
      // The plain iterator yields the same orders (previews here).
      let previews = 0;
      for await (const preview of c.orders.list({ projectId: 'Personal Certificates', preview: true, limit: 1000 })) {
        assert.ok(!('email' in preview), 'previews carry the preview fields only');
        previews++;
      }
      assert.ok(previews >= BULK_ORDERS, `${previews} personal previews`);
    });

    it('exports through jsonPages with prefetch: the same orders as pages(), one request ahead at most', async () => {
      const { client: c } = client();
      const parsed: unknown[] = [];
      for await (const page of c.orders.list({ projectId: 'All Projects', limit: 1000 }).pages()) parsed.push(...page.orders!);
      const before = served.proxy.count('GET', '/v1/orders');
      const texts: string[] = [];
      let total = 0;
      for await (const page of c.orders.list({ projectId: 'All Projects', limit: 1000, prefetch: true }).jsonPages()) {
        total = page.order_stats.total_orders;
        for (const item of page.items) assert.ok(!item.includes('\n'), 'one line per order');
        texts.push(...page.items);
      }
      assert.equal(total, BULK_ORDERS + ACME_ORDER_COUNT);
      assert.deepEqual(texts.map((t) => JSON.parse(t) as unknown), parsed, 'each text parses to the order pages() gives');
      assert.equal(served.proxy.count('GET', '/v1/orders') - before, Math.ceil(parsed.length / 1000), 'no page fetched twice or past the end');

      // A loop that stops after the first page: the request ahead is cancelled or answered, never more.
      const atStop = served.proxy.count('GET', '/v1/orders');
      for await (const page of c.orders.list({ projectId: 'Personal Certificates', preview: true, limit: 100, prefetch: true }).jsonPages()) {
        assert.equal(page.items.length, 100);
        const preview = JSON.parse(page.items[0]!) as Record<string, unknown>;
        assert.ok('project_name' in preview && !('asset_name' in preview), 'previews');
        break;
      }
      assert.ok(served.proxy.count('GET', '/v1/orders') - atStop <= 2, 'the first page and at most one ahead');
    });

    it('fetches one token for many concurrent calls, and a new one when it expires mid-iteration', async () => {
      let now = Date.parse('2026-01-01T00:00:00Z');
      const { client: c } = client('admin', { now: () => now });
      const tokens = (): number => served.proxy.count('POST', '/oauth2/token');
      const start = tokens();
      const results = await Promise.all(Array.from({ length: 12 }, () => c.projects.list()));
      assert.equal(results.length, 12);
      assert.equal(tokens() - start, 1, 'one token request shared by concurrent calls');

      let count = 0;
      let page = 0;
      for await (const p of c.orders.list({ projectId: 'All Projects', limit: 500 }).pages()) {
        count += p.orders!.length;
        page++;
        // The client's clock passes the token's lifetime (3600 s) after the first page...
        if (page === 1) now += 3600 * 1000;
        // ...and on the fourth page the server calls the current token invalid (revoked, expired early).
        if (page === 3) {
          served.proxy.fault = (req, n) =>
            req.path === '/v1/orders' && n === 1
              ? { status: 401, headers: { 'www-authenticate': 'Bearer error="invalid_token"' }, body: { detail: 'Invalid token' } }
              : 'pass';
        }
      }
      assert.equal(count, BULK_ORDERS + ACME_ORDER_COUNT, 'the walk completed');
      assert.equal(tokens() - start, 3, 'first token, proactive refresh at expiry, reactive refresh after the 401');
    });

    it('retries a 429 after its Retry-After, and a 503', async () => {
      const { client: c, sleeps } = client();
      await c.accessToken();
      served.proxy.fault = (req, n) => {
        if (req.path !== `/v1/orders/${'acme-0001'}`) return 'pass';
        if (n === 1) return { status: 429, headers: { 'retry-after': '7' }, body: { detail: 'Too Many Requests' } };
        if (n === 2) return { status: 503, body: { detail: 'Service Unavailable' } };
        return 'pass';
      };
      const order = await c.orders.get('acme-0001');
      assert.equal(order.order_id, 'acme-0001');
      assert.equal(sleeps.length, 2);
      assert.ok(sleeps[0]! >= 7000 && sleeps[0]! < 8000, `waited ${sleeps[0]} ms for Retry-After: 7`);
      assert.ok(sleeps[1]! < 1000, `backoff after the 503: ${sleeps[1]} ms`);
    });

    it('survives dropped connections while listing, and gives up with a connection error', async () => {
      const { client: c, sleeps } = client();
      await c.accessToken();
      served.proxy.fault = (req, n) => (req.path === '/v1/orders' && (n === 2 || n === 3) ? (n === 2 ? 'drop-before' : 'drop-after') : 'pass');
      const all = await c.orders.list({ projectId: 'All Projects', limit: 1000 }).toArray();
      assert.equal(all.length, BULK_ORDERS + ACME_ORDER_COUNT);
      assert.equal(new Set(all.map((o) => o.order_id)).size, all.length);
      assert.equal(sleeps.length, 2);

      const { client: down } = client('admin', { retry: { maxRetries: 2 } });
      await down.accessToken();
      served.proxy.fault = (req) => (req.path.startsWith('/v1/orders/') ? 'drop-before' : 'pass');
      await assert.rejects(down.orders.get('acme-0001'), (e) => e instanceof CertdeskConnectionError && e.status === 0);
    });

    for (const path of ['multipart', 'presigned upload'] as const) {
      it(`creates an order once through ${path} although the answer to the create is lost`, async () => {
        const title = `exactly once (${path}) ${target.name}`;
        const { client: c } = client('admin', path === 'presigned upload' ? { multipartMaxBytes: 0 } : {});
        await c.accessToken();
        const creates: string[] = [];
        served.proxy.fault = (req, n) => {
          if (req.method !== 'POST' || req.path !== '/v1/orders') return 'pass';
          creates.push(String(req.headers['idempotency-key']));
          return n === 1 ? 'drop-after' : 'pass';
        };
        const order = await c.orders.create({ file: new Blob([new Uint8Array(pngBytes())], { type: 'image/png' }), fileName: 'art.png', orderTitle: title, tags: ['a', 'b'] });
        served.proxy.fault = () => 'pass';
        assert.equal(order.order_title, title);
        assert.equal(order.order_state, 'In Progress');
        assert.deepEqual(order.tags, ['a', 'b']);
        assert.ok(creates.length >= 2, 'the create was sent again');
        assert.equal(new Set(creates).size, 1, 'with the same Idempotency-Key');
        const same = (await c.orders.list({ projectId: 'Personal Certificates', limit: 1000 }).toArray()).filter((o) => o.order_title === title);
        assert.equal(same.length, 1, 'one order, not two');
        assert.equal((await c.orders.get(order.order_id)).order_id, order.order_id);
        assert.equal((await c.orders.history(order.order_id)).events[0]!.type, 'created');
      });
    }

    it('maps statuses to error classes with the request id', async () => {
      const { client: c } = client('editor');
      const notFound = await c.orders.get('no-such-order').catch((e: unknown) => e);
      assert.ok(notFound instanceof NotFoundError);
      assert.equal(notFound.status, 404);
      assert.ok(notFound.requestId, 'request id of the answer');
      assert.deepEqual(notFound.body, { detail: (notFound.body as { detail: string }).detail });
      const invalid = await c.orders.list({ projectId: 'All Projects', limit: 5000 }).toArray().catch((e: unknown) => e);
      assert.ok(invalid instanceof UnprocessableEntityError);
      assert.match(invalid.message, /limit/);
      const { client: viewer } = client('viewer');
      const denied = await viewer.orders.create({ file: new Uint8Array(pngBytes()), orderTitle: 'x' }).catch((e: unknown) => e);
      assert.ok(denied instanceof PermissionDeniedError, `got ${String(denied)}`);
    });

    it('reads projects, members and a certificate that verifies offline with the JWKS', async () => {
      const { client: c } = client('admin');
      const projects = await c.projects.list();
      assert.deepEqual(projects.map((p) => p.name).sort(), Object.values(ACME.projects).map((p) => p.name).sort());
      assert.equal((await c.projects.get(ACME.projects.zeta.id)).name, 'Zeta');
      const members = await c.organizations.members(ACME.id);
      assert.ok(members.org_admins.includes(USERS.admin.email));

      const order = await c.orders.create({ file: new Uint8Array(pngBytes()), contentType: 'image/png', fileName: 'cert.png', orderTitle: 'to certify' });
      await certifyOrder(served.app, order.order_id);
      const certificate = await c.orders.certificate(order.order_id);
      const jwks = await c.certificates.jwks();
      const { claims } = await verifyCertificate(certificate.jws, jwks as never, { issuer: served.serverUrl });
      assert.equal(claims.sub, order.order_id);
      assert.equal(claims.asset_sha256, certificate.asset_sha256);
      assert.equal((await c.certificates.get(certificate.certificate_id)).status, 'valid');
      const [h, p, s] = certificate.jws.split('.');
      const forged = `${h}.${Buffer.from(JSON.stringify({ ...claims, asset_sha256: '0'.repeat(64) })).toString('base64url')}.${s}`;
      await assert.rejects(verifyCertificate(forged, jwks as never));
      assert.ok(p);
      // An access token is signed by the same service but is not a certificate (typ at+jwt).
      await assert.rejects(verifyCertificate(await c.accessToken(), jwks as never));
    });
  });
}
