/**
 * Interoperability: a certified OAuth client library (oauth4webapi) discovers the server through RFC 8414
 * metadata, obtains tokens with both client authentication methods from a real listening server,
 * validates the access token as an RFC 9068 JWT against the published JWKS, and uses it on a
 * protected route.
 */
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import * as oauth from 'oauth4webapi';
import { SCOPES } from '../../src/contract/schemas.js';
import { describeOnEachDatabase } from '../helpers/database.js';
import { freePort } from '../helpers/free-port.js';
import { buildOAuthTestApp, seedClient, testConfig, type SeededClient } from './oauth-harness.js';

const insecure = { [oauth.allowInsecureRequests]: true } as const;

describeOnEachDatabase('oauth4webapi against a listening server', (getDb) => {
  let app: FastifyInstance;
  let base: string;
  let client: SeededClient;
  let as: oauth.AuthorizationServer;

  before(async () => {
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    app = await buildOAuthTestApp(getDb(), { config: testConfig({ ISSUER_URL: base, TOKEN_AUDIENCE: `${base}/v1` }) });
    await app.listen({ host: '127.0.0.1', port });
    client = await seedClient(getDb().db, { scopes: [SCOPES.read] });
    const issuer = new URL(base);
    as = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, { algorithm: 'oauth2', ...insecure }));
  });
  after(async () => {
    await app.close();
  });

  for (const method of ['client_secret_basic', 'client_secret_post'] as const) {
    it(`obtains a token with ${method}, validates it as RFC 9068 and calls a protected route`, async () => {
      const auth = method === 'client_secret_basic' ? oauth.ClientSecretBasic(client.clientSecret) : oauth.ClientSecretPost(client.clientSecret);
      const response = await oauth.clientCredentialsGrantRequest(as, { client_id: client.clientId }, auth, new URLSearchParams({ scope: SCOPES.read }), insecure);
      const tokens = await oauth.processClientCredentialsResponse(as, { client_id: client.clientId }, response);
      assert.equal(tokens.token_type, 'bearer');
      assert.equal(tokens.expires_in, 3600);

      const request = new Request(`${base}/test/read`, { headers: { authorization: `Bearer ${tokens.access_token}` } });
      const claims = await oauth.validateJwtAccessToken(as, request, `${base}/v1`, { ...insecure, signingAlgorithms: ['ES256'] });
      assert.equal(claims.client_id, client.clientId);
      assert.equal(claims.scope, SCOPES.read);

      const res = await fetch(request);
      assert.equal(res.status, 200);
      assert.equal(((await res.json()) as { principal: { clientId: string } }).principal.clientId, client.clientId);
    });
  }

  it('surfaces invalid_client to the library: a Basic challenge for Basic, an RFC 6749 body for post', async () => {
    const basic = await oauth.clientCredentialsGrantRequest(as, { client_id: client.clientId }, oauth.ClientSecretBasic('wrong'), new URLSearchParams(), insecure);
    const challenge = await oauth.processClientCredentialsResponse(as, { client_id: client.clientId }, basic).then(
      () => assert.fail('expected a challenge'),
      (err: unknown) => err,
    );
    assert.ok(challenge instanceof oauth.WWWAuthenticateChallengeError);
    assert.equal(challenge.status, 401);
    assert.equal(challenge.cause[0]?.scheme, 'basic');
    assert.equal(((await challenge.response.json()) as { error: string }).error, 'invalid_client');
    const post = await oauth.clientCredentialsGrantRequest(as, { client_id: client.clientId }, oauth.ClientSecretPost('wrong'), new URLSearchParams(), insecure);
    await assert.rejects(oauth.processClientCredentialsResponse(as, { client_id: client.clientId }, post), (err: unknown) => {
      assert.ok(err instanceof oauth.ResponseBodyError);
      assert.equal(err.error, 'invalid_client');
      assert.equal(err.status, 401);
      return true;
    });
  });
});
