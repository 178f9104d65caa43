/**
 * Credentials in query strings never reach the log (issue 8 item 7). The real application at log level
 * info serves real HTTP requests in a child process (pino writes to file descriptor 1 directly, past any
 * in-process capture); its whole output is then searched.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { repoFileUrl, runLoggingScript } from '../helpers/logging-script.js';

const SECRETS = {
  signature: 'SIGxSECRETxVALUEx0001',
  page_token: 'PAGExTOKENxVALUEx0002',
  client_secret: 'CLIENTxSECRETxVALUEx0003',
  my_secret_key: 'OTHERxSECRETxVALUEx0004',
  token: 'BARExTOKENxVALUEx0005',
  code: 'AUTHxCODExVALUEx0006',
};

const script = `
import { loadConfig } from ${repoFileUrl('src/config.ts')};
import { openDatabase } from ${repoFileUrl('src/storage/database.ts')};
import { migrate } from ${repoFileUrl('src/storage/migrate.ts')};
import { buildTestApp } from ${repoFileUrl('test/helpers/app.ts')};
const secrets = ${JSON.stringify(SECRETS)};
const config = loadConfig({ CERTDESK_ENV: 'test', LOG_LEVEL: 'info' });
const database = await openDatabase({ databaseUrl: null, pgliteDir: null });
await migrate(database);
const app = await buildTestApp({ config, database });
const base = await app.listen({ host: '127.0.0.1', port: 0 });
const paths = [
  '/objects/orgs/ac3e0000-0000-4000-8000-000000000001/previews/a.png?expires=1900000000&signature=' + secrets.signature,
  '/v1/orders?project_id=All%20Projects&page_token=' + secrets.page_token + '&limit=5',
  '/oauth2/token?client_secret=' + secrets.client_secret + '&client_id=visible-client',
  '/healthz?my_secret_key=' + secrets.my_secret_key + '&token=' + secrets.token + '&code=' + secrets.code,
];
for (const p of paths) await (await fetch(base + p, { method: p.startsWith('/oauth2') ? 'POST' : 'GET' })).arrayBuffer();
await app.close();
await database.close();
process.stderr.write(JSON.stringify({ requests: paths.length }) + '\\n');
`;

describe('query-string credentials in logs', () => {
  it('are redacted in every logged URL, keeping the path and the other parameters', () => {
    const { log, probe } = runLoggingScript<{ requests: number }>(script);
    assert.equal(probe.requests, 4);
    for (const [name, value] of Object.entries(SECRETS)) assert.ok(!log.includes(value), `${name} value leaked into the log`);
    assert.match(log, /"url":"\/objects\/orgs\/ac3e0000-0000-4000-8000-000000000001\/previews\/a\.png\?expires=1900000000&signature=\[redacted\]"/);
    assert.match(log, /"url":"\/v1\/orders\?project_id=All%20Projects&page_token=\[redacted\]&limit=5"/);
    assert.match(log, /"url":"\/oauth2\/token\?client_secret=\[redacted\]&client_id=visible-client"/);
    assert.match(log, /"url":"\/healthz\?my_secret_key=\[redacted\]&token=\[redacted\]&code=\[redacted\]"/);
  });
});
