import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, it } from 'node:test';
import { exportJWK, generateKeyPair, SignJWT, type JWTPayload } from 'jose';
import type { FastifyInstance } from 'fastify';
import { SCOPES } from '../../src/contract/schemas.js';
import { revokeApiClient } from '../../src/domain/api-clients/index.js';
import { catalogues } from '../../src/i18n/index.js';
import { describeOnEachDatabase } from '../helpers/database.js';
import { ManualClock } from '../helpers/manual-clock.js';
import { AUDIENCE, buildOAuthTestApp, ISSUER, obtainToken, seedClient, type SeededClient } from './oauth-harness.js';

const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

describeOnEachDatabase('bearer verification', (getDb) => {
  let app: FastifyInstance;
  let client: SeededClient;
  // Moves the client access cache past its TTL without waiting; token lifetimes use real time.
  const clock = new ManualClock();

  before(async () => {
    app = await buildOAuthTestApp(getDb(), { clientAccessTtlMs: 100, clock: clock.now });
    client = await seedClient(getDb().db, { scopes: [SCOPES.read], isAdmin: true });
  });
  after(async () => {
    await app.close();
  });

  const call = (authorization?: string, url = '/test/read', headers: Record<string, string> = {}) =>
    app.inject({ method: 'GET', url, headers: { ...(authorization === undefined ? {} : { authorization }), ...headers } });

  /** A token shaped like ours, signed by the service's own key, with claims or header changed. */
  const forge = async (claims: JWTPayload = {}, header: Record<string, unknown> = {}) => {
    const { kid, privateKey } = app.oauth.keys.current().signing;
    const now = Math.floor(Date.now() / 1000);
    return new SignJWT({ client_id: client.clientId, scope: SCOPES.read, iss: ISSUER, aud: AUDIENCE, sub: client.clientId, iat: now, exp: now + 600, jti: randomUUID(), ...claims })
      .setProtectedHeader({ alg: 'ES256', typ: 'at+jwt', kid, ...header })
      .sign(privateKey);
  };

  const assertInvalidToken = (res: Awaited<ReturnType<typeof call>>, description = /./) => {
    assert.equal(res.statusCode, 401, res.body);
    assert.match(String(res.headers['www-authenticate']), /^Bearer error="invalid_token", error_description="[^"]+"$/);
    const body = res.json() as { detail: string };
    assert.deepEqual(Object.keys(body), ['detail']);
    assert.match(body.detail, description);
  };

  it('admits a valid token and sets the principal resolved from the client', async () => {
    const token = await obtainToken(app, client);
    const res = await call(`Bearer ${token}`);
    assert.equal(res.statusCode, 200, res.body);
    assert.deepEqual((res.json() as { principal: unknown }).principal, {
      userId: client.userId,
      organizationId: client.organizationId,
      email: client.email,
      emailKey: client.email,
      username: 'Tester',
      isAdmin: true,
      clientId: client.clientId,
      scopes: [SCOPES.read],
    });
    assert.equal((await call(`bearer ${token}`)).statusCode, 200, 'the scheme is case-insensitive');
  });

  it('answers 401 Not authenticated with a bare Bearer challenge when no credentials are sent', async () => {
    const res = await call();
    assert.equal(res.statusCode, 401);
    assert.deepEqual(res.json(), { detail: 'Not authenticated' });
    assert.equal(res.headers['www-authenticate'], 'Bearer');
  });

  it('authenticates before validating parameters: no token and no project_id is 401', async () => {
    const res = await call(undefined, '/test/validated');
    assert.equal(res.statusCode, 401);
    assert.deepEqual(res.json(), { detail: 'Not authenticated' });
  });

  it('treats another scheme as no credentials (RFC 6750 3.1: no error code)', async () => {
    const res = await call(`Basic ${Buffer.from(`${client.clientId}:${client.clientSecret}`).toString('base64')}`);
    assert.equal(res.statusCode, 401);
    assert.equal(res.headers['www-authenticate'], 'Bearer');
    assert.deepEqual(res.json(), { detail: 'Not authenticated' });
  });

  it('refuses an empty or malformed bearer token as invalid_token', async () => {
    assertInvalidToken(await call('Bearer'));
    assertInvalidToken(await call('Bearer not a token'));
    assertInvalidToken(await call('Bearer abc.def.ghi'));
  });

  it('answers 403 insufficient_scope naming the required scope', async () => {
    const token = await obtainToken(app, client);
    const res = await call(`Bearer ${token}`, '/test/write');
    assert.equal(res.statusCode, 403);
    assert.equal(res.headers['www-authenticate'], `Bearer error="insufficient_scope", scope="${SCOPES.write}"`);
    assert.equal(typeof (res.json() as { detail: string }).detail, 'string');
  });

  it('refuses a token signed by another key, with a foreign kid or with the service kid', async () => {
    const { privateKey } = await generateKeyPair('ES256');
    const now = Math.floor(Date.now() / 1000);
    const claims = { client_id: client.clientId, scope: SCOPES.read, iss: ISSUER, aud: AUDIENCE, sub: client.clientId, iat: now, exp: now + 600, jti: randomUUID() };
    for (const kid of ['someone-elses-key', app.oauth.keys.current().signing.kid]) {
      const token = await new SignJWT(claims).setProtectedHeader({ alg: 'ES256', typ: 'at+jwt', kid }).sign(privateKey);
      assertInvalidToken(await call(`Bearer ${token}`));
    }
    const noKid = await new SignJWT(claims).setProtectedHeader({ alg: 'ES256', typ: 'at+jwt' }).sign(privateKey);
    assertInvalidToken(await call(`Bearer ${noKid}`));
  });

  it('refuses alg none', async () => {
    const now = Math.floor(Date.now() / 1000);
    const header = { alg: 'none', typ: 'at+jwt', kid: app.oauth.keys.current().signing.kid };
    const payload = { client_id: client.clientId, scope: SCOPES.read, iss: ISSUER, aud: AUDIENCE, sub: client.clientId, iat: now, exp: now + 600, jti: randomUUID() };
    assertInvalidToken(await call(`Bearer ${b64(header)}.${b64(payload)}.`));
    assertInvalidToken(await call(`Bearer ${b64(header)}.${b64(payload)}`));
  });

  it('refuses HS256 signed with the public key as the secret', async () => {
    const jwk = app.oauth.keys.current().jwks.keys[0]!;
    const now = Math.floor(Date.now() / 1000);
    const payload = { client_id: client.clientId, scope: SCOPES.read, iss: ISSUER, aud: AUDIENCE, sub: client.clientId, iat: now, exp: now + 600, jti: randomUUID() };
    for (const secret of [JSON.stringify(jwk), JSON.stringify(await exportJWK((await app.oauth.keys.verificationKey(jwk.kid!))!))]) {
      const token = await new SignJWT(payload).setProtectedHeader({ alg: 'HS256', typ: 'at+jwt', kid: jwk.kid }).sign(new TextEncoder().encode(secret));
      assertInvalidToken(await call(`Bearer ${token}`));
    }
  });

  it('refuses an expired token (beyond the clock tolerance) and accepts one within it', async () => {
    const now = Math.floor(Date.now() / 1000);
    assertInvalidToken(await call(`Bearer ${await forge({ iat: now - 3700, exp: now - 100 })}`), /expired/);
    assert.equal((await call(`Bearer ${await forge({ iat: now - 3600, exp: now - 5 })}`)).statusCode, 200);
    assertInvalidToken(await call(`Bearer ${await forge({ nbf: now + 600 })}`));
  });

  it('refuses a wrong audience, a wrong issuer, a wrong or missing typ', async () => {
    assertInvalidToken(await call(`Bearer ${await forge({ aud: 'https://elsewhere.test/v1' })}`));
    assertInvalidToken(await call(`Bearer ${await forge({ iss: 'https://evil.test' })}`));
    assertInvalidToken(await call(`Bearer ${await forge({}, { typ: 'JWT' })}`));
    assertInvalidToken(await call(`Bearer ${await forge({}, { typ: undefined })}`));
    assertInvalidToken(await call(`Bearer ${await forge({ sub: 'someone-else' })}`));
    assertInvalidToken(await call(`Bearer ${await forge({ jti: undefined })}`));
  });

  it('refuses a tampered payload, also once the genuine token is in the verified-token cache', async () => {
    const token = await obtainToken(app, client);
    assert.equal((await call(`Bearer ${token}`)).statusCode, 200, 'the genuine token is now cached');
    const [h, p, s] = token.split('.') as [string, string, string];
    const claims = JSON.parse(Buffer.from(p, 'base64url').toString()) as Record<string, unknown>;
    claims.scope = `${SCOPES.read} ${SCOPES.write}`;
    assertInvalidToken(await call(`Bearer ${h}.${b64(claims)}.${s}`, '/test/write'));
  });

  it("refuses a revoked client's existing token once the cache entry expires (TTL injectable, ≤ 5 s)", async () => {
    const victim = await seedClient(getDb().db);
    const token = await obtainToken(app, victim);
    assert.equal((await call(`Bearer ${token}`)).statusCode, 200);
    await revokeApiClient(getDb().db, victim.clientId);
    clock.advance(100);
    assertInvalidToken(await call(`Bearer ${token}`), /revoked/);
  });

  it("refuses the token of a client whose user left, and applies a client's reduced scopes", async () => {
    const leaver = await seedClient(getDb().db, { scopes: [SCOPES.read, SCOPES.write] });
    const token = await obtainToken(app, leaver);
    assert.equal((await call(`Bearer ${token}`, '/test/write')).statusCode, 200);
    await getDb().db.updateTable('api_clients').set({ scopes: [SCOPES.read] }).where('client_id', '=', leaver.clientId).execute();
    clock.advance(100);
    assert.equal((await call(`Bearer ${token}`, '/test/write')).statusCode, 403);
    assert.equal((await call(`Bearer ${token}`)).statusCode, 200);
    const elsewhere = await seedClient(getDb().db);
    await getDb().db.updateTable('users').set({ organization_id: elsewhere.organizationId }).where('id', '=', leaver.userId).execute();
    clock.advance(100);
    assertInvalidToken(await call(`Bearer ${token}`));
  });

  it('translates detail but keeps the header description ASCII English', async () => {
    const res = await call('Bearer abc.def.ghi', '/test/read', { lang: 'ja' });
    assert.equal(res.statusCode, 401);
    assert.equal(res.headers['content-language'], 'ja');
    assert.equal((res.json() as { detail: string }).detail, catalogues.ja['errors.invalid_token']);
    assert.match(String(res.headers['www-authenticate']), /^[\x20-\x7e]+$/);
    const none = await call(undefined, '/test/read', { 'accept-language': 'es' });
    assert.equal(none.headers['content-language'], 'es');
    assert.equal((none.json() as { detail: string }).detail, catalogues.es['errors.not_authenticated']);
  });

  it('rejects a production-length cache TTL above 5 s', async () => {
    await assert.rejects(buildOAuthTestApp(getDb(), { clientAccessTtlMs: 6_000 }), RangeError);
  });
});
