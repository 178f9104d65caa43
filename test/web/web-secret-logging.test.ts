/**
 * The web application never logs a password, a session id, a CSRF token or a new credential's secret:
 * the real app at log level trace runs sign-in (failed and successful), credential creation, a webhook
 * endpoint's creation and secret rotation, and sign-out in a child process (pino writes to fd 1 directly), whose whole output is then searched.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { repoFileUrl as url, runLoggingScript } from '../helpers/logging-script.js';

const script = `
import { openTestPglite } from ${url('test/helpers/database.ts')};
import { loadStandardFixture, USERS } from ${url('test/helpers/fixtures.ts')};
import { buildWebApp, csrfFieldOf, form, FORM_HEADERS, signIn } from ${url('test/web/web-test-helpers.ts')};
const handle = await openTestPglite();
const { storage } = await loadStandardFixture(handle);
const app = await buildWebApp(handle, storage, { logLevel: 'trace' });
const wrongPassword = 'Wrong-Password-' + Math.random().toString(36).slice(2);
await signIn(app, USERS.admin.email, wrongPassword);
const { jar } = await signIn(app, USERS.admin.email, USERS.admin.password);
const page = await app.inject({ url: '/organization', headers: { cookie: jar.header() } });
const csrf = csrfFieldOf(page.body);
const created = await app.inject({ method: 'POST', url: '/organization/credentials', headers: { ...FORM_HEADERS, cookie: jar.header() },
  payload: form({ _csrf: csrf, name: 'logged?', scopes: 'enterprise-api-access/read' }) });
const shown = await app.inject({ url: created.headers.location, headers: { cookie: jar.header() } });
const secret = /id="client-secret"[^>]*>([^<]+)</.exec(shown.body)[1];
// A webhook endpoint (a literal public address: no DNS needed) and its rotation: both secrets are shown once, never logged.
const hook = await app.inject({ method: 'POST', url: '/organization/webhooks', headers: { ...FORM_HEADERS, cookie: jar.header() },
  payload: form({ _csrf: csrf, url: 'https://93.184.216.34/hook', events: 'order.created' }) });
const hookPage = await app.inject({ url: hook.headers.location, headers: { cookie: jar.header() } });
const webhookSecret = /id="webhook-secret"[^>]*>([^<]+)</.exec(hookPage.body)[1];
const endpointId = /href="[/]organization[/]webhooks[/]([0-9a-f-]{36})"/.exec(hookPage.body)[1];
const rotation = await app.inject({ method: 'POST', url: '/organization/webhooks/' + endpointId + '/rotate-secret', headers: { ...FORM_HEADERS, cookie: jar.header() },
  payload: form({ _csrf: csrf }) });
const rotatedPage = await app.inject({ url: rotation.headers.location, headers: { cookie: jar.header() } });
const rotatedSecret = /id="webhook-secret"[^>]*>([^<]+)</.exec(rotatedPage.body)[1];
await app.inject({ method: 'POST', url: '/sign-out', headers: { ...FORM_HEADERS, cookie: jar.header() }, payload: form({ _csrf: csrf }) });
await app.close();
await handle.close();
process.stderr.write(JSON.stringify({ secret, webhookSecret, rotatedSecret, session: jar.get('certdesk_session'), csrf, wrongPassword, password: USERS.admin.password, status: created.statusCode }) + '\\n');
`;

test('passwords, session ids, CSRF tokens and new secrets (credentials, webhook endpoints) never reach the log', () => {
  const { log, probe } = runLoggingScript<Record<string, string | number>>(script);
  assert.equal(probe.status, 303);
  assert.match(log, /"url":"\/organization\/credentials"/, 'requests were logged at all');
  assert.match(log, /web\.credential_created/);
  assert.match(log, /web\.webhook_secret_created/);
  assert.match(log, /web\.webhook_secret_rotated/);
  for (const name of ['secret', 'webhookSecret', 'rotatedSecret', 'session', 'csrf', 'wrongPassword', 'password'] as const) {
    const value = String(probe[name]);
    assert.ok(value.length >= 8, `${name} probe is meaningful`);
    assert.ok(!log.includes(value), `${name} found in the log`);
    assert.ok(!log.includes(encodeURIComponent(value)), `url-encoded ${name} found in the log`);
  }
});
