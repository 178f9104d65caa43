import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { decodeJwt, decodeProtectedHeader } from 'jose';
import type { FastifyInstance } from 'fastify';
import { SCOPES } from '../../src/contract/schemas.js';
import { revokeApiClient } from '../../src/domain/api-clients/index.js';
import { catalogues } from '../../src/i18n/index.js';
import { describeOnEachDatabase } from '../helpers/database.js';
import { ManualClock } from '../helpers/manual-clock.js';
import { AUDIENCE, basic, buildOAuthTestApp, form, FORM_HEADERS, ISSUER, seedClient, type SeededClient } from './oauth-harness.js';

const BOTH = `${SCOPES.read} ${SCOPES.write}`;

describeOnEachDatabase('POST /oauth2/token', (getDb) => {
  let app: FastifyInstance;
  let client: SeededClient;
  let reader: SeededClient;
  // Drives last_used_at throttling (one write a minute) without waiting a minute.
  const clock = new ManualClock(Date.UTC(2026, 0, 1, 12));

  before(async () => {
    // Caching off: revocations in these tests must show on the next request.
    app = await buildOAuthTestApp(getDb(), { clientAccessTtlMs: 0, clock: clock.now });
    client = await seedClient(getDb().db, { scopes: [SCOPES.read, SCOPES.write] });
    reader = await seedClient(getDb().db, { scopes: [SCOPES.read] });
  });
  after(async () => {
    await app.close();
  });

  const post = (payload: string, headers: Record<string, string> = {}) =>
    app.inject({ method: 'POST', url: '/oauth2/token', headers: { ...FORM_HEADERS, ...headers }, payload });

  const assertTokenHeaders = (res: { headers: Record<string, unknown> }) => {
    assert.equal(res.headers['cache-control'], 'no-store');
    assert.equal(res.headers['pragma'], 'no-cache');
  };

  const assertError = (res: Awaited<ReturnType<typeof post>>, status: number, error: string) => {
    assert.equal(res.statusCode, status, res.body);
    assertTokenHeaders(res);
    const body = res.json() as Record<string, unknown>;
    assert.deepEqual(Object.keys(body).sort(), ['error', 'error_description']);
    assert.equal(body.error, error);
    assert.equal(typeof body.error_description, 'string');
  };

  it('issues an RFC 9068 access token to client_secret_post, stating the scope granted without a request', async () => {
    const res = await post(form({ grant_type: 'client_credentials', client_id: client.clientId, client_secret: client.clientSecret }));
    assert.equal(res.statusCode, 200, res.body);
    assertTokenHeaders(res);
    const body = res.json() as Record<string, unknown>;
    assert.deepEqual(Object.keys(body).sort(), ['access_token', 'expires_in', 'scope', 'token_type']);
    assert.equal(body.token_type, 'Bearer');
    assert.equal(body.expires_in, 3600);
    assert.equal(body.scope, BOTH);
    const header = decodeProtectedHeader(body.access_token as string);
    assert.equal(header.alg, 'ES256');
    assert.equal(header.typ, 'at+jwt');
    assert.equal(typeof header.kid, 'string');
    const claims = decodeJwt(body.access_token as string);
    assert.equal(claims.iss, ISSUER);
    assert.equal(claims.aud, AUDIENCE);
    assert.equal(claims.sub, client.clientId);
    assert.equal(claims.client_id, client.clientId);
    assert.equal(claims.scope, BOTH);
    assert.equal((claims.exp as number) - (claims.iat as number), 3600);
    assert.match(claims.jti as string, /^[0-9a-f-]{36}$/);
  });

  it('accepts client_secret_basic and omits scope when the grant equals the request', async () => {
    const res = await post(form({ grant_type: 'client_credentials', scope: SCOPES.read }), { authorization: basic(client.clientId, client.clientSecret) });
    assert.equal(res.statusCode, 200, res.body);
    const body = res.json() as Record<string, unknown>;
    assert.equal(body.scope, undefined);
    assert.equal(decodeJwt(body.access_token as string).scope, SCOPES.read);
  });

  it('decodes Basic credentials form-urlencoded before base64 (RFC 6749 Appendix B)', async () => {
    const special = await seedClient(getDb().db, { clientId: 'client:with spaces+plus', clientSecret: 'sec ret:%&=+é/ü' });
    const res = await post(form({ grant_type: 'client_credentials' }), { authorization: basic(special.clientId, special.clientSecret) });
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(decodeJwt((res.json() as { access_token: string }).access_token).client_id, 'client:with spaces+plus');
    // Not url-encoded first: "%&" is not valid percent-encoding.
    const raw = `Basic ${Buffer.from(`${special.clientId}:${special.clientSecret}`).toString('base64')}`;
    assertError(await post(form({ grant_type: 'client_credentials' }), { authorization: raw }), 400, 'invalid_request');
    // ... and a raw "+" decodes to a space, so the secret no longer matches.
    const plus = await seedClient(getDb().db, { clientId: 'plus-client', clientSecret: 'a+b' });
    const rawPlus = `Basic ${Buffer.from(`${plus.clientId}:${plus.clientSecret}`).toString('base64')}`;
    assertError(await post(form({ grant_type: 'client_credentials' }), { authorization: rawPlus }), 401, 'invalid_client');
    assert.equal((await post(form({ grant_type: 'client_credentials' }), { authorization: basic(plus.clientId, plus.clientSecret) })).statusCode, 200);
  });

  it('narrows the grant to a requested subset and drops repeated scope tokens', async () => {
    const res = await post(form({ grant_type: 'client_credentials', client_id: client.clientId, client_secret: client.clientSecret, scope: `${SCOPES.write} ${SCOPES.write}` }));
    assert.equal(res.statusCode, 200, res.body);
    assert.equal((res.json() as { scope: string }).scope, SCOPES.write);
  });

  it('refuses a scope the client does not have, or a malformed one, with invalid_scope', async () => {
    const creds = { grant_type: 'client_credentials', client_id: reader.clientId, client_secret: reader.clientSecret };
    assertError(await post(form({ ...creds, scope: SCOPES.write })), 400, 'invalid_scope');
    assertError(await post(form({ ...creds, scope: 'unknown/scope' })), 400, 'invalid_scope');
    assertError(await post(form({ ...creds, scope: `${SCOPES.read}  ` })), 400, 'invalid_scope');
    assertError(await post(form({ ...creds, scope: `"quoted"` })), 400, 'invalid_scope');
  });

  it('answers invalid_client 401 with a Basic challenge when Basic was used', async () => {
    const res = await post(form({ grant_type: 'client_credentials' }), { authorization: basic(client.clientId, 'wrong') });
    assertError(res, 401, 'invalid_client');
    assert.equal(res.headers['www-authenticate'], 'Basic realm="certdesk"');
  });

  it('answers invalid_client 401 without a challenge for a wrong body secret, an unknown client or no credentials', async () => {
    for (const payload of [
      form({ grant_type: 'client_credentials', client_id: client.clientId, client_secret: 'wrong' }),
      form({ grant_type: 'client_credentials', client_id: 'nobody', client_secret: 'whatever' }),
      form({ grant_type: 'client_credentials', client_id: client.clientId }),
      form({ grant_type: 'client_credentials' }),
    ]) {
      const res = await post(payload);
      assertError(res, 401, 'invalid_client');
      assert.equal(res.headers['www-authenticate'], undefined);
    }
  });

  it('treats another Authorization scheme as an unsupported authentication method', async () => {
    const res = await post(form({ grant_type: 'client_credentials' }), { authorization: 'Bearer abc' });
    assertError(res, 401, 'invalid_client');
    assert.equal(res.headers['www-authenticate'], 'Basic realm="certdesk"');
  });

  it('refuses malformed Basic credentials with invalid_request', async () => {
    for (const authorization of ['Basic', 'Basic !!!', `Basic ${Buffer.from('no-colon').toString('base64')}`, `Basic ${Buffer.from('%zz:x').toString('base64')}`]) {
      assertError(await post(form({ grant_type: 'client_credentials' }), { authorization }), 400, 'invalid_request');
    }
  });

  it('refuses two authentication methods in one request with invalid_request', async () => {
    const auth = { authorization: basic(client.clientId, client.clientSecret) };
    assertError(await post(form({ grant_type: 'client_credentials', client_id: client.clientId, client_secret: client.clientSecret }), auth), 400, 'invalid_request');
    assertError(await post(form({ grant_type: 'client_credentials', client_secret: client.clientSecret }), auth), 400, 'invalid_request');
    assertError(await post(form({ grant_type: 'client_credentials', client_id: reader.clientId }), auth), 400, 'invalid_request');
    // Repeating the Basic client's own id in the body is allowed by RFC 6749 (2.3.1 / 3.2.1).
    assert.equal((await post(form({ grant_type: 'client_credentials', client_id: client.clientId }), auth)).statusCode, 200);
  });

  it('refuses a repeated parameter with invalid_request and ignores unknown ones', async () => {
    const creds: Array<[string, string]> = [['client_id', client.clientId], ['client_secret', client.clientSecret]];
    const repeated = await post(form([['grant_type', 'client_credentials'], ['grant_type', 'client_credentials'], ...creds]));
    assertError(repeated, 400, 'invalid_request');
    assert.match((repeated.json() as { error_description: string }).error_description, /grant_type/);
    assertError(await post(form([['grant_type', 'client_credentials'], ...creds, ['scope', SCOPES.read], ['scope', SCOPES.read]])), 400, 'invalid_request');
    assertError(await post(form([['grant_type', 'client_credentials'], ...creds, ['client_secret', client.clientSecret]])), 400, 'invalid_request');
    const unknown = await post(form([['grant_type', 'client_credentials'], ...creds, ['audience', 'x'], ['audience', 'y']]));
    assert.equal(unknown.statusCode, 200, unknown.body);
  });

  it('accepts only application/x-www-form-urlencoded bodies', async () => {
    const payload = form({ grant_type: 'client_credentials', client_id: client.clientId, client_secret: client.clientSecret });
    const json = await app.inject({
      method: 'POST',
      url: '/oauth2/token',
      headers: { 'content-type': 'application/json' },
      payload: JSON.stringify({ grant_type: 'client_credentials', client_id: client.clientId, client_secret: client.clientSecret }),
    });
    assertError(json, 400, 'invalid_request');
    assertError(await app.inject({ method: 'POST', url: '/oauth2/token', headers: { 'content-type': 'text/plain' }, payload }), 400, 'invalid_request');
    assertError(await app.inject({ method: 'POST', url: '/oauth2/token' }), 400, 'invalid_request');
    assertError(await post('grant_type=%zz'), 400, 'invalid_request');
    const withCharset = await app.inject({
      method: 'POST',
      url: '/oauth2/token',
      headers: { 'content-type': 'application/x-www-form-urlencoded; charset=UTF-8' },
      payload,
    });
    assert.equal(withCharset.statusCode, 200, withCharset.body);
  });

  it('answers invalid_request for a missing grant_type and unsupported_grant_type for another one', async () => {
    const creds = { client_id: client.clientId, client_secret: client.clientSecret };
    assertError(await post(form(creds)), 400, 'invalid_request');
    assertError(await post(form({ ...creds, grant_type: '' })), 400, 'invalid_request');
    assertError(await post(form({ ...creds, grant_type: 'password' })), 400, 'unsupported_grant_type');
    assertError(await post(form({ ...creds, grant_type: 'authorization_code' })), 400, 'unsupported_grant_type');
  });

  it('answers 405 for other methods, still not cacheable', async () => {
    for (const method of ['GET', 'PUT', 'DELETE', 'PATCH'] as const) {
      const res = await app.inject({ method, url: '/oauth2/token' });
      assert.equal(res.statusCode, 405);
      assert.deepEqual(res.json(), { detail: 'Method Not Allowed' });
      assert.equal(res.headers['allow'], 'POST');
      assertTokenHeaders(res);
    }
  });

  it('refuses a revoked client and a client whose user left the organization', async () => {
    const revoked = await seedClient(getDb().db);
    assert.equal(await revokeApiClient(getDb().db, revoked.clientId), true);
    assertError(await post(form({ grant_type: 'client_credentials', client_id: revoked.clientId, client_secret: revoked.clientSecret })), 401, 'invalid_client');

    const leaver = await seedClient(getDb().db);
    const otherOrg = await seedClient(getDb().db);
    await getDb().db.updateTable('users').set({ organization_id: otherOrg.organizationId }).where('id', '=', leaver.userId).execute();
    assertError(await post(form({ grant_type: 'client_credentials', client_id: leaver.clientId, client_secret: leaver.clientSecret })), 401, 'invalid_client');
  });

  it('translates error_description and says so in Content-Language', async () => {
    const res = await post(form({ grant_type: 'client_credentials', client_id: client.clientId, client_secret: 'wrong' }), { 'accept-language': 'fr-CA,fr;q=0.9' });
    assertError(res, 401, 'invalid_client');
    assert.equal(res.headers['content-language'], 'fr');
    assert.equal((res.json() as { error_description: string }).error_description, catalogues.fr['oauth.invalid_client']);
    const password = form({ grant_type: 'password', client_id: client.clientId, client_secret: client.clientSecret });
    const de = await post(password, { lang: 'de' });
    assert.equal(de.headers['content-language'], 'de');
    assert.equal((de.json() as { error_description: string }).error_description, catalogues.de['oauth.unsupported_grant_type']);
    assert.equal((await post(password)).json<{ error_description: string }>().error_description, catalogues.en['oauth.unsupported_grant_type']);
  });

  it('updates last_used_at on the first token, not on every one', async () => {
    const fresh = await seedClient(getDb().db);
    const lastUsed = async () =>
      (await getDb().db.selectFrom('api_clients').select('last_used_at').where('client_id', '=', fresh.clientId).executeTakeFirstOrThrow()).last_used_at;
    assert.equal(await lastUsed(), null);
    const payload = form({ grant_type: 'client_credentials', client_id: fresh.clientId, client_secret: fresh.clientSecret });
    const firstUse = clock.now();
    assert.equal((await post(payload)).statusCode, 200);
    await app.oauth.lastUsed.settled();
    assert.equal((await lastUsed())?.getTime(), firstUse, 'last_used_at recorded');
    clock.advance(59_999);
    assert.equal((await post(payload)).statusCode, 200);
    await app.oauth.lastUsed.settled();
    assert.equal((await lastUsed())?.getTime(), firstUse, 'a second token within the minute does not write');
    clock.advance(1);
    assert.equal((await post(payload)).statusCode, 200);
    await app.oauth.lastUsed.settled();
    assert.equal((await lastUsed())?.getTime(), firstUse + 60_000, 'a minute later the next token writes');
  });
});
