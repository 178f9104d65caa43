/**
 * What arrives on the wire before or beside Fastify's routing (issue 8 items 8 and 10): errors of Node's
 * HTTP parser, CONNECT, a repeated Authorization header, a token issued in the future, and the security
 * headers of JSON and /docs responses. The real application listening on a port; raw sockets.
 */
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { SignJWT } from 'jose';
import { openTestPglite } from '../helpers/database.js';
import { startApi, type Api } from '../http/api-harness.js';
import { USERS } from '../helpers/fixtures.js';
import { rawRequest } from './raw-http.js';

const ORDERS = '/v1/orders?project_id=All%20Projects&limit=1';

describe('the wire', () => {
  let api: Api;
  let port: number;
  before(async () => {
    api = await startApi({ name: 'pglite', open: openTestPglite });
    await api.app.listen({ host: '127.0.0.1', port: 0 });
    port = (api.app.server.address() as AddressInfo).port;
  });
  after(() => api.close());

  const get = (path: string, headers: string[] = []) => rawRequest(port, `GET ${path} HTTP/1.1\r\nHost: localhost\r\n${headers.map((h) => `${h}\r\n`).join('')}\r\n`);
  const assertDetail = (res: { headers: Record<string, string>; body: string }) => {
    assert.match(res.headers['content-type'] ?? '', /^application\/json/);
    const body = JSON.parse(res.body) as Record<string, unknown>;
    assert.deepEqual(Object.keys(body), ['detail'], res.body);
    assert.equal(typeof body.detail, 'string');
    assert.equal(res.headers['x-content-type-options'], 'nosniff');
  };

  it('headers too large: 431 {"detail"} and Connection: close', async () => {
    const res = await get('/healthz', [`X-Big: ${'a'.repeat(20_000)}`]);
    assert.equal(res.status, 431);
    assertDetail(res);
    assert.equal(JSON.parse(res.body).detail, 'Request Header Fields Too Large');
    assert.equal(res.headers.connection, 'close');
  });

  it('a request line too long: 414 {"detail"}', async () => {
    const res = await get(`/v1/orders?project_id=${'a'.repeat(20_000)}`);
    assert.equal(res.status, 414);
    assertDetail(res);
    assert.equal(res.headers.connection, 'close');
  });

  // Found by the socket fuzzer: a body after a HEAD's answer reads as "data after Connection: close".
  it('a HEAD refused by the parser gets the headers and no body', async () => {
    const res = await rawRequest(port, `HEAD /v1/orders?project_id=${'a'.repeat(20_000)} HTTP/1.1\r\nHost: localhost\r\n\r\n`);
    assert.equal(res.status, 414);
    assert.equal(res.headers.connection, 'close');
    assert.match(res.headers['content-type'] ?? '', /^application\/json/);
    assert.equal(res.body, '');
  });

  it('bad framing: 400 {"detail"}', async () => {
    const res = await rawRequest(port, 'POST /oauth2/token HTTP/1.1\r\nHost: localhost\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n');
    assert.equal(res.status, 400);
    assertDetail(res);
    assert.equal(res.headers.connection, 'close');
    const garbage = await rawRequest(port, 'GET / HTTP/1.1\r\nHost: localhost\r\nBad Header\r\n\r\n');
    assert.equal(garbage.status, 400);
    assertDetail(garbage);
  });

  it('CONNECT gets an answer: 405 {"detail"} in the asked language', async () => {
    const res = await rawRequest(port, 'CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\nAccept-Language: fr\r\n\r\n');
    assert.equal(res.status, 405);
    assertDetail(res);
    assert.equal(JSON.parse(res.body).detail, 'Méthode non autorisée');
    assert.equal(res.headers.connection, 'close');
  });

  it('two Authorization headers: 400 {"detail"} on the API, RFC invalid_request on the token endpoint', async () => {
    const good = `Authorization: Bearer ${api.tokens.editor}`;
    assert.equal((await get(ORDERS, [good])).status, 200);
    for (const pair of [[good, 'Authorization: Bearer not-a-token'], ['authorization: Bearer not-a-token', good]]) {
      const res = await get(ORDERS, pair);
      assert.equal(res.status, 400);
      assertDetail(res);
      assert.equal(JSON.parse(res.body).detail, 'The Authorization header must not be repeated');
    }
    const basic = (id: string, secret: string) => `Authorization: Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`;
    const form = 'grant_type=client_credentials';
    const res = await rawRequest(
      port,
      `POST /oauth2/token HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: ${form.length}\r\n${basic(USERS.viewer.clientId, USERS.viewer.clientSecret)}\r\n${basic(USERS.editor.clientId, 'guess')}\r\n\r\n${form}`,
    );
    assert.equal(res.status, 400);
    assert.deepEqual(JSON.parse(res.body), { error: 'invalid_request', error_description: 'The Authorization header must not be repeated' });
    assert.equal(res.headers['cache-control'], 'no-store');
  });

  it('a token issued in the future is refused (401 invalid_token); within the clock tolerance it is not', async () => {
    const { kid, privateKey } = api.app.oauth.keys.current().signing;
    const mint = (iatOffset: number) => {
      const iat = Math.floor(Date.now() / 1000) + iatOffset;
      return new SignJWT({ client_id: USERS.editor.clientId, scope: 'enterprise-api-access/read' })
        .setProtectedHeader({ alg: 'ES256', typ: 'at+jwt', kid })
        .setIssuer(api.app.oauth.tokens.issuer)
        .setAudience(api.app.oauth.tokens.audience)
        .setSubject(USERS.editor.clientId)
        .setIssuedAt(iat)
        .setExpirationTime(iat + 3600)
        .setJti(crypto.randomUUID())
        .sign(privateKey);
    };
    const future = await get(ORDERS, [`Authorization: Bearer ${await mint(3600)}`]);
    assert.equal(future.status, 401);
    assert.match(future.headers['www-authenticate'] ?? '', /error="invalid_token"/);
    assertDetail(future);
    assert.equal((await get(ORDERS, [`Authorization: Bearer ${await mint(10)}`])).status, 200);
  });

  it('JSON answers, errors and /docs carry nosniff and refuse framing', async () => {
    for (const path of ['/healthz', '/openapi.json', '/no-such-route', '/docs', '/docs/', ORDERS]) {
      const res = await get(path);
      assert.equal(res.headers['x-content-type-options'], 'nosniff', path);
      assert.equal(res.headers['x-frame-options'], 'DENY', path);
    }
  });
});
