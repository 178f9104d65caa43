/**
 * The public certificate fast path (src/http/public-certificate-fast-path.ts) answers certificate lookups
 * and badges before Fastify. Over real HTTP (the fast path sits in the server's request listener, which
 * `inject` never reaches), each of its answers is compared with the route's answer to the same request
 * through `inject` (Fastify's routing, hooks and handler): same status, body and headers (but the date and
 * the request id), for the JSON and the badge, 200 and 304, a negotiated language and a caller's request
 * id; with the answer kept in memory (PostgreSQL, once the change feed is trusted) and not kept (read).
 */
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { insertSyntheticCertificates } from '../../src/domain/certificates/synthetic-certificates.js';
import { eventually, sequenceLog } from '../helpers/certificates.js';
import { describeOnEachDatabase } from '../helpers/database.js';
import { ACME, USERS } from '../helpers/fixtures.js';
import { startApi, type Api } from './api-harness.js';

interface Answer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** Headers that differ between any two answers, or that only a real connection has. */
const PER_RESPONSE = new Set(['date', 'x-request-id', 'connection', 'keep-alive', 'transfer-encoding']);

describeOnEachDatabase('public certificate fast path', (getDb, target) => {
  let api: Api;
  let app: FastifyInstance;
  let base: string;
  let id: string;

  before(async () => {
    api = await startApi(getDb(), undefined, {}, { PUBLIC_CERTIFICATE_CACHE_TTL: '3600' });
    app = api.app;
    base = await app.listen({ host: '127.0.0.1', port: 0 });
    const ids = await insertSyntheticCertificates(getDb().db, app.services.certificates, {
      organizationId: ACME.id,
      organizationName: ACME.name,
      ownerEmail: USERS.admin.email,
      count: 1,
      orderIdPrefix: 'ord_fast_path_',
    });
    id = ids[0]!;
    // Answers are kept only once the transparency log has the certificate.
    await sequenceLog(app);
  });
  after(async () => {
    await api?.close();
  });

  /** Through the server's listener: the fast path. */
  async function fetched(url: string, headers: Record<string, string> = {}): Promise<Answer> {
    const res = await fetch(`${base}${url}`, { headers });
    const all: Record<string, string> = {};
    res.headers.forEach((value, name) => (all[name] = value));
    return { status: res.status, headers: all, body: await res.text() };
  }
  /** Through Fastify alone: the route. */
  async function routed(url: string, headers: Record<string, string> = {}): Promise<Answer> {
    const res = await app.inject({ method: 'GET', url, headers });
    return { status: res.statusCode, headers: Object.fromEntries(Object.entries(res.headers).map(([k, v]) => [k, String(v)])), body: res.body };
  }
  const comparable = (a: Answer) => ({ ...a, headers: Object.fromEntries(Object.entries(a.headers).filter(([k]) => !PER_RESPONSE.has(k))) });
  const kept = () => app.services.publicCertificates.peek(id);

  async function assertSameAnswers(): Promise<void> {
    for (const url of [`/v1/certificates/${id}`, `/verify/${id}/badge.svg`, `/v1/certificates/${id.toUpperCase()}`]) {
      const headers = { 'accept-language': 'fr-CH, fr;q=0.9', 'x-request-id': 'caller-request-0001' };
      const route = await routed(url, headers);
      const fast = await fetched(url, headers);
      assert.equal(route.status, 200);
      assert.deepEqual(comparable(fast), comparable(route), url);
      assert.equal(fast.headers['x-request-id'], 'caller-request-0001');
      assert.equal(fast.headers['content-language'], 'fr');
      const conditional = { 'if-none-match': route.headers.etag! };
      const route304 = await routed(url, conditional);
      const fast304 = await fetched(url, conditional);
      assert.equal(route304.status, 304);
      assert.deepEqual(comparable(fast304), comparable(route304), `${url} (304)`);
      assert.match(fast304.headers['x-request-id']!, /^[0-9a-f-]{36}$/, 'a new request id when the caller sends none');
    }
  }

  it('answers as the route does, kept in memory or read: JSON and badge, 200 and 304, language and request id', async () => {
    if (target.name === 'postgres') {
      // Kept only once the change feed is trusted (its first heartbeat).
      await eventually(async () => (await fetched(`/v1/certificates/${id}`), kept()), (answer) => answer !== null, 'the answer kept');
      await assertSameAnswers();
      app.services.publicCertificates.clear();
      assert.equal(kept(), null);
    } else {
      assert.equal(kept(), null, 'PGlite keeps nothing: every answer is read');
    }
    // Not kept: the fast path reads the row (and, on PostgreSQL, keeps it).
    const first = await fetched(`/v1/certificates/${id}`);
    assert.equal(first.status, 200);
    assert.equal(kept() !== null, target.name === 'postgres');
    app.services.publicCertificates.clear();
    await assertSameAnswers();
    const badge = await fetched(`/verify/${id}/badge.svg`);
    assert.equal(badge.headers['content-security-policy'], "default-src 'none'; sandbox");
    assert.equal(badge.headers['content-type'], 'image/svg+xml; charset=utf-8');
  });

  it('counts its answers in the request metrics under the route, and leaves the rest to Fastify', async () => {
    const counted = async () => {
      const text = (await app.inject({ method: 'GET', url: '/metrics' })).body;
      const line = text.split('\n').find((l) => l.startsWith('certdesk_http_requests_total{') && l.includes('route="/v1/certificates/:certificate_id"') && l.includes('status="200"'));
      return Number(line?.split(' ').at(-1) ?? 0);
    };
    const before = await counted();
    await fetched(`/v1/certificates/${id}`);
    await fetched(`/v1/certificates/${id}`);
    assert.equal(await counted(), before + 2);
    // A query string, HEAD, an unknown and a malformed id are Fastify's (the same answers as ever).
    assert.equal((await fetched(`/v1/certificates/${id}?x=1`)).status, 200);
    assert.equal((await fetch(`${base}/v1/certificates/${id}`, { method: 'HEAD' })).status, 200);
    for (const unknownId of ['00000000-0000-4000-8000-000000000000', 'not-an-id']) {
      const url = `/v1/certificates/${unknownId}`;
      const [fast, route] = [await fetched(url, { lang: 'de' }), await routed(url, { lang: 'de' })];
      assert.equal(fast.status, 404);
      assert.equal(fast.headers['cache-control'], 'no-store');
      assert.deepEqual(comparable(fast), comparable(route), url);
    }
    assert.equal((await fetched(`/verify/00000000-0000-4000-8000-000000000000/badge.svg`)).status, 404);
  });
});
