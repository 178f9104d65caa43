/**
 * The API's error shapes (404, 405, 500) and language negotiation, through the real application.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Type } from '@sinclair/typebox';
import { openTestPglite } from '../helpers/database.js';
import { startApi, type Api } from './api-harness.js';

describe('errors and language', () => {
  let api: Api;
  before(async () => {
    api = await startApi({ name: 'pglite', open: openTestPglite }, (app) => {
      app.get('/v1/test-boom', async () => {
        throw new Error('connection string postgres://secret@db/internal failed at /srv/app/x.ts:12');
      });
      // A body-validated route: bodies go through Ajv with allErrors, mapped to the same 422 shape.
      app.post(
        '/v1/test-body',
        {
          schema: {
            querystring: Type.Object({ dry_run: Type.Optional(Type.Boolean()) }),
            body: Type.Object({ name: Type.String({ minLength: 2 }), count: Type.Integer({ maximum: 5 }), tags: Type.Array(Type.String()) }),
          },
        },
        async (request) => request.body,
      );
    });
  });
  after(() => api.close());

  it('an unknown route is 404 {"detail": "Not Found"}', async () => {
    for (const url of ['/nope', '/v1/nothing', '/v1/projects/a/b', '/v2/projects']) {
      const res = await api.get(url, null);
      assert.equal(res.statusCode, 404, url);
      assert.deepEqual(res.json(), { detail: 'Not Found' });
      assert.match(String(res.headers['content-type']), /^application\/json/);
      assert.ok(res.headers['x-request-id']);
    }
  });

  it('a wrong method on a known path is 405 with Allow', async () => {
    for (const [method, url] of [
      ['POST', '/v1/projects'],
      ['DELETE', '/v1/projects/0a0a0a0a-0000-4000-8000-0000000000a1'],
      ['PUT', '/v1/organizations/x/members'],
      ['PATCH', '/healthz'],
    ] as const) {
      const res = await api.app.inject({ method, url });
      assert.equal(res.statusCode, 405, `${method} ${url}`);
      assert.deepEqual(res.json(), { detail: 'Method Not Allowed' });
      assert.equal(res.headers.allow, 'GET, HEAD');
    }
    const fr = await api.app.inject({ method: 'POST', url: '/v1/projects', headers: { lang: 'fr' } });
    assert.deepEqual(fr.json(), { detail: 'Méthode non autorisée' });
  });

  it('a 500 leaks nothing and carries the request id', async () => {
    const res = await api.app.inject({ url: '/v1/test-boom', headers: { 'x-request-id': 'trace-12345678' } });
    assert.equal(res.statusCode, 500);
    assert.deepEqual(res.json(), { detail: 'Internal Server Error' });
    assert.equal(res.headers['x-request-id'], 'trace-12345678');
    assert.doesNotMatch(res.body, /secret|postgres|srv|stack/);
    const ja = await api.app.inject({ url: '/v1/test-boom', headers: { lang: 'ja' } });
    assert.deepEqual(ja.json(), { detail: 'サーバー内部エラー' });
    assert.ok(ja.headers['x-request-id']);
  });

  it('a body is validated with every error listed after the parameters', async () => {
    const res = await api.app.inject({ method: 'POST', url: '/v1/test-body?dry_run=perhaps', payload: { name: 'x', count: 9 } });
    assert.equal(res.statusCode, 422);
    assert.deepEqual(res.json(), {
      detail: [
        { type: 'bool_parsing', loc: ['query', 'dry_run'], msg: 'Input should be a valid boolean, unable to interpret input', input: 'perhaps' },
        { type: 'string_too_short', loc: ['body', 'name'], msg: 'String should have at least 2 characters', input: 'x', ctx: { min_length: 2 } },
        { type: 'less_than_equal', loc: ['body', 'count'], msg: 'Input should be less than or equal to 5', input: 9, ctx: { le: 5 } },
        { type: 'missing', loc: ['body', 'tags'], msg: 'Field required', input: null },
      ],
    });
    const ok = await api.app.inject({ method: 'POST', url: '/v1/test-body', payload: { name: 'xy', count: '3', tags: [] } });
    assert.equal(ok.statusCode, 200);
    assert.deepEqual(ok.json(), { name: 'xy', count: 3, tags: [] });
  });

  it('a malformed URL is 400 in the same shape', async () => {
    const res = await api.app.inject({ url: '/v1/projects/%E0%A4%A' });
    assert.equal(res.statusCode, 400);
    assert.deepEqual(res.json(), { detail: 'Bad Request' });
    assert.ok(res.headers['x-request-id']);
  });

  const cases: Array<[Record<string, string>, string, string]> = [
    [{}, 'en', 'String should have at least 36 characters'],
    [{ lang: 'fr' }, 'fr', 'La chaîne doit contenir au moins 36 caractères'],
    [{ 'accept-language': 'de-DE,de;q=0.9' }, 'de', 'Die Zeichenkette muss mindestens 36 Zeichen lang sein'],
    [{ 'accept-language': 'es-MX' }, 'es', 'La cadena debe tener al menos 36 caracteres'],
    [{ lang: 'ja', 'accept-language': 'fr' }, 'ja', '文字列は36文字以上である必要があります'],
    [{ lang: 'xx' }, 'en', 'String should have at least 36 characters'],
    [{ 'accept-language': 'xx, zz;q=0.5' }, 'en', 'String should have at least 36 characters'],
  ];
  for (const [headers, lang, msg] of cases) {
    it(`${JSON.stringify(headers)} → ${lang}`, async () => {
      const res = await api.get('/v1/projects/short', 'admin', headers);
      assert.equal(res.statusCode, 422);
      assert.equal(res.headers['content-language'], lang);
      const detail = (res.json() as { detail: Array<{ msg: string; type: string; loc: unknown[] }> }).detail;
      // The message is translated; the data (type, loc) is not.
      assert.equal(detail[0]!.msg, msg);
      assert.equal(detail[0]!.type, 'string_too_short');
      assert.deepEqual(detail[0]!.loc, ['path', 'project_id']);
    });
  }

  it('every response says its language, 401s and 404s included', async () => {
    for (const url of ['/v1/projects', '/nope', '/healthz']) {
      const res = await api.get(url, null, { lang: 'es' });
      assert.equal(res.headers['content-language'], 'es', url);
    }
    const notAuth = await api.get('/v1/projects', null, { 'accept-language': 'fr-CA' });
    assert.deepEqual(notAuth.json(), { detail: 'Non authentifié' });
  });

  it('data values are never translated', async () => {
    const res = await api.get('/v1/projects', 'admin', { lang: 'fr' });
    assert.deepEqual((res.json() as Array<{ name: string }>).map((p) => p.name), ['beta', 'Écran', 'Zeta']);
    const members = (await api.get('/v1/projects/0a0a0a0a-0000-4000-8000-0000000000a1', 'admin', { lang: 'ja' })).json() as {
      members: Array<{ role: string }>;
    };
    assert.deepEqual(members.members.map((m) => m.role), ['editor', 'viewer']);
  });
});
