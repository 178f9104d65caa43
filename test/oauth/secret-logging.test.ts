/**
 * Secrets never reach the log: the real application (buildApp) at log level trace serves token requests
 * (both client authentication methods, failures included) and a bearer request in a child process whose
 * complete log output is then searched for the secret, the Basic credentials and the access token.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { repoFileUrl as url, runLoggingScript } from '../helpers/logging-script.js';

const script = `
import { loadConfig } from ${url('src/config.ts')};
import { openDatabase } from ${url('src/storage/database.ts')};
import { migrate } from ${url('src/storage/migrate.ts')};
import { buildTestApp } from ${url('test/helpers/app.ts')};
import { seedClient, form, basic, FORM_HEADERS } from ${url('test/oauth/oauth-harness.ts')};
const config = loadConfig({ CERTDESK_ENV: 'test', LOG_LEVEL: 'trace' });
const database = await openDatabase({ databaseUrl: null, pgliteDir: null });
await migrate(database);
const app = await buildTestApp({ config, database });
const client = await seedClient(database.db);
const post = (payload, headers = {}) => app.inject({ method: 'POST', url: '/oauth2/token', headers: { ...FORM_HEADERS, ...headers }, payload });
const ok = await post(form({ grant_type: 'client_credentials', client_id: client.clientId, client_secret: client.clientSecret }));
const token = ok.json().access_token;
await post(form({ grant_type: 'client_credentials' }), { authorization: basic(client.clientId, client.clientSecret) });
await post(form({ grant_type: 'client_credentials', client_id: client.clientId, client_secret: client.clientSecret + 'x' }));
await post(form({ grant_type: 'password', client_id: client.clientId, client_secret: client.clientSecret }));
await post(form([['client_secret', client.clientSecret], ['client_secret', client.clientSecret]]));
await app.inject({ method: 'GET', url: '/.well-known/jwks.json', headers: { authorization: 'Bearer ' + token } });
await app.close();
await database.close();
process.stderr.write(JSON.stringify({ secret: client.clientSecret, basic: basic(client.clientId, client.clientSecret), token, status: ok.statusCode }) + '\\n');
`;

describe('secrets in logs', () => {
  it('never writes a client secret, Basic credentials or an access token to the request log', () => {
    const { log, probe } = runLoggingScript<{ secret: string; basic: string; token: string; status: number }>(script);
    assert.equal(probe.status, 200);
    assert.match(log, /"url":"\/oauth2\/token"/, 'requests were logged at all');
    assert.ok(log.split('\n').filter(Boolean).length >= 12, 'a line per request and response');
    for (const [name, value] of [
      ['client secret', probe.secret],
      ['url-encoded client secret', encodeURIComponent(probe.secret)],
      ['Basic credentials', probe.basic.slice('Basic '.length)],
      ['access token', probe.token],
      ['access token signature', probe.token.split('.')[2]!],
    ] as const) {
      assert.ok(!log.includes(value), `${name} found in the log`);
    }
  });
});
