/**
 * `GET /log/tile/...` answered from memory before Fastify (src/http/log-tile-fast-path.ts) gives exactly
 * the route's answer: status, bytes and every header but the per-response ones, for full and partial tiles
 * and bundles, in the caller's language and with the caller's request id; tiles not yet read, missing
 * tiles and malformed paths go to the route (404 in the contract's shape). PGlite and PostgreSQL.
 */
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { insertSyntheticCertificates } from '../../src/domain/certificates/synthetic-certificates.js';
import { tilePath } from '../../src/domain/transparency-log/index.js';
import { sequenceLog } from '../helpers/certificates.js';
import { describeOnEachDatabase } from '../helpers/database.js';
import { ACME, USERS } from '../helpers/fixtures.js';
import { startApi, type Api } from '../http/api-harness.js';

interface Answer {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
}

const PER_RESPONSE = new Set(['date', 'x-request-id', 'connection', 'keep-alive', 'transfer-encoding']);

describeOnEachDatabase('log tile fast path', (getDb) => {
  let api: Api;
  let app: FastifyInstance;
  let base: string;

  before(async () => {
    api = await startApi(getDb());
    app = api.app;
    base = await app.listen({ host: '127.0.0.1', port: 0 });
    await insertSyntheticCertificates(getDb().db, app.services.certificates, { organizationId: ACME.id, organizationName: ACME.name, ownerEmail: USERS.admin.email, count: 300, orderIdPrefix: 'ord_tiles_' });
    await sequenceLog(app);
  });
  after(async () => {
    await api?.close();
  });

  async function fetched(url: string, headers: Record<string, string> = {}): Promise<Answer> {
    const res = await fetch(`${base}${url}`, { headers });
    const all: Record<string, string> = {};
    res.headers.forEach((value, name) => (all[name] = value));
    return { status: res.status, headers: all, body: Buffer.from(await res.arrayBuffer()) };
  }
  async function routed(url: string, headers: Record<string, string> = {}): Promise<Answer> {
    const res = await app.inject({ method: 'GET', url, headers });
    return { status: res.statusCode, headers: Object.fromEntries(Object.entries(res.headers).map(([k, v]) => [k, String(v)])), body: res.rawPayload };
  }
  const comparable = (a: Answer) => ({ ...a, headers: Object.fromEntries(Object.entries(a.headers).filter(([k]) => !PER_RESPONSE.has(k))) });

  it('answers kept tiles exactly as the route does', async () => {
    const size = Number((await routed('/log/checkpoint')).body.toString().split('\n')[1]);
    assert.ok(size >= 300);
    const paths = [
      tilePath({ level: 0, index: 0, width: 256 }),
      tilePath({ level: 'entries', index: 0, width: 256 }),
      tilePath({ level: 0, index: 1, width: size - 256 }),
      tilePath({ level: 1, index: 0, width: 1 }),
    ];
    for (const path of paths) {
      const url = `/log/${path}`;
      const headers = { 'accept-language': 'ja', 'x-request-id': 'caller-request-0002' };
      const first = await fetched(url, headers); // read by the route, and kept
      assert.equal(first.status, 200, url);
      assert.ok(app.services.logTiles.get(path), `${url} kept`);
      const route = await routed(url, headers);
      const fast = await fetched(url, headers);
      assert.deepEqual(comparable(fast), comparable(route), url);
      assert.deepEqual(comparable(first), comparable(route), url);
      assert.equal(fast.headers['x-request-id'], 'caller-request-0002');
      assert.equal(fast.headers['content-language'], 'ja');
      assert.equal(fast.headers['access-control-allow-origin'], '*');
      assert.equal(fast.headers['cache-control'], path.includes('.p/') ? 'public, max-age=60' : 'public, max-age=31536000, immutable');
    }
    assert.equal((await fetched(`/log/${paths[0]}`)).body.length, 256 * 32);
  });

  it('leaves missing tiles, malformed paths and other spellings to the route', async () => {
    for (const url of ['/log/tile/0/999', '/log/tile/0/000.p/0', '/log/tile/9/000', '/log/tile/entries/001']) {
      const fast = await fetched(url);
      const route = await routed(url);
      assert.equal(fast.status, 404, url);
      assert.deepEqual(JSON.parse(fast.body.toString()), JSON.parse(route.body.toString()), url);
    }
    // A query string or an encoded path is not the cache's spelling: the route answers (the same tile).
    for (const url of ['/log/tile/0/000?x=1', '/log/tile/0/%30%30%30']) {
      const fast = await fetched(url);
      assert.equal(fast.status, 200, url);
      assert.deepEqual(fast.body, (await routed(url)).body, url);
    }
  });
});
