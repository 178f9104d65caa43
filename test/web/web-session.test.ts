/**
 * Sessions, CSRF, sign-in limits, headers and access rules of the web application, in process
 * (app.inject) on every database target.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { describeOnEachDatabase } from '../helpers/database.js';
import { loadStandardFixture, USERS, removeTemporaryObjectStorages } from '../helpers/fixtures.js';
import { buildWebApp, csrfFieldOf, FORM_HEADERS, form, signIn } from './web-test-helpers.js';
import type { ObjectStorage } from '../../src/storage/object-storage/object-storage.js';

const WRONG_PASSWORD_TEXT = 'The e-mail or password is incorrect.';

describeOnEachDatabase('web sessions', (getDb) => {
  let storage: ObjectStorage;
  let app: FastifyInstance;

  before(async () => {
    ({ storage } = await loadStandardFixture(getDb()));
    app = await buildWebApp(getDb(), storage);
  });
  after(async () => {
    await app.close();
  });

  test('pages need a session: the sign-in page remembers where the user was going', async () => {
    const res = await app.inject({ url: '/orders?project=Personal%20Certificates' });
    assert.equal(res.statusCode, 303);
    assert.equal(res.headers.location, '/sign-in?next=%2Forders%3Fproject%3DPersonal%2520Certificates');
  });

  test('signing in sets an HttpOnly, SameSite=Lax session cookie whose hash alone is stored', async () => {
    const { jar, response } = await signIn(app, USERS.editor.email, USERS.editor.password);
    assert.equal(response.statusCode, 303);
    assert.equal(response.headers.location, '/orders');
    const setCookie = String(response.headers['set-cookie']);
    assert.match(setCookie, /certdesk_session=[A-Za-z0-9_-]{43};/);
    assert.match(setCookie, /HttpOnly/);
    assert.match(setCookie, /SameSite=Lax/);
    assert.doesNotMatch(setCookie, /Secure/, 'plain HTTP without a trusted proxy: no Secure flag');
    assert.match(setCookie, /Max-Age=43200/);
    const id = jar.get('certdesk_session')!;
    const rows = await getDb().db.selectFrom('web_sessions').select(['id_hash', 'expires_at']).execute();
    assert.ok(rows.some((r) => r.id_hash === createHash('sha256').update(id).digest('hex')));
    assert.ok(rows.every((r) => r.id_hash !== id), 'the cookie value itself is never stored');
    const page = await app.inject({ url: '/orders', headers: { cookie: jar.header() } });
    assert.equal(page.statusCode, 200);
    assert.match(page.body, /Signed in as editor@acme\.test/);
  });

  test('behind a trusted TLS proxy the session cookie is Secure', async () => {
    const proxied = await buildWebApp(getDb(), storage, { trustedProxyHops: 1 });
    try {
      const { response } = await signIn(proxied, USERS.viewer.email, USERS.viewer.password, { 'x-forwarded-proto': 'https' });
      assert.equal(response.statusCode, 303);
      assert.match(String(response.headers['set-cookie']), /certdesk_session=[^;]+;.*Secure/);
    } finally {
      await proxied.close();
    }
  });

  test('a wrong password and an unknown e-mail get the same answer and no session', async () => {
    const wrong = await signIn(app, USERS.loner.email, 'not-the-password');
    const unknown = await signIn(app, 'nobody@acme.test', 'not-the-password');
    for (const { response, jar } of [wrong, unknown]) {
      assert.equal(response.statusCode, 401);
      assert.ok(response.body.includes(WRONG_PASSWORD_TEXT));
      assert.equal(jar.get('certdesk_session'), undefined);
    }
    assert.equal(
      wrong.response.body.replace(/value="[^"]*"/g, ''),
      unknown.response.body.replace(/value="[^"]*"/g, ''),
      'apart from echoed values, the pages are identical',
    );
  });

  test('the sign-in form refuses a post without its CSRF cookie and field', async () => {
    const res = await app.inject({
      method: 'POST',
      url: '/sign-in',
      headers: FORM_HEADERS,
      payload: form({ email: USERS.admin.email, password: USERS.admin.password }),
    });
    assert.equal(res.statusCode, 403);
    assert.match(res.body, /Request refused/);
    assert.equal(res.cookies.find((c) => c.name === 'certdesk_session'), undefined);
  });

  test('state-changing posts need the session CSRF token', async () => {
    const { jar } = await signIn(app, USERS.admin.email, USERS.admin.password);
    const before = await getDb().db.selectFrom('api_clients').select('client_id').execute();
    for (const token of [undefined, 'wrong-token']) {
      const res = await app.inject({
        method: 'POST',
        url: '/organization/credentials',
        headers: { ...FORM_HEADERS, cookie: jar.header() },
        payload: form({ name: 'sneaky', scopes: 'enterprise-api-access/read', ...(token ? { _csrf: token } : {}) }),
      });
      assert.equal(res.statusCode, 403);
      assert.match(res.body, /This form has expired or did not come from this site/);
    }
    const afterRows = await getDb().db.selectFrom('api_clients').select('client_id').execute();
    assert.equal(afterRows.length, before.length);
    const signOut = await app.inject({ method: 'POST', url: '/sign-out', headers: { ...FORM_HEADERS, cookie: jar.header() }, payload: '' });
    assert.equal(signOut.statusCode, 403, 'sign-out is a POST with a token too');
  });

  test('signing out deletes the session; the old cookie no longer opens pages', async () => {
    const { jar } = await signIn(app, USERS.viewer.email, USERS.viewer.password);
    const page = await app.inject({ url: '/organization', headers: { cookie: jar.header() } });
    const res = await app.inject({
      method: 'POST',
      url: '/sign-out',
      headers: { ...FORM_HEADERS, cookie: jar.header() },
      payload: form({ _csrf: csrfFieldOf(page.body) }),
    });
    assert.equal(res.statusCode, 303);
    assert.equal(res.headers.location, '/sign-in?signed_out=1');
    const hash = createHash('sha256').update(jar.get('certdesk_session')!).digest('hex');
    assert.equal(await getDb().db.selectFrom('web_sessions').select('id_hash').where('id_hash', '=', hash).executeTakeFirst(), undefined);
    const again = await app.inject({ url: '/organization', headers: { cookie: jar.header() } });
    assert.equal(again.statusCode, 303);
    assert.equal(again.headers.location, '/sign-in?next=%2Forganization&expired=1');
  });

  test('an expired session is refused', async () => {
    const { jar } = await signIn(app, USERS.loner.email, USERS.loner.password);
    const hash = createHash('sha256').update(jar.get('certdesk_session')!).digest('hex');
    await getDb().db.updateTable('web_sessions').set({ expires_at: new Date(Date.now() - 1000) }).where('id_hash', '=', hash).execute();
    const res = await app.inject({ url: '/orders', headers: { cookie: jar.header() } });
    assert.equal(res.statusCode, 303);
    assert.match(String(res.headers.location), /^\/sign-in\?/);
  });

  test('failed sign-ins are limited per e-mail and address, with a friendly 429, and never lock out the owner elsewhere', async () => {
    const limited = await buildWebApp(getDb(), storage, { trustedProxyHops: 1 });
    try {
      const from = (ip: string) => ({ 'x-forwarded-for': ip });
      for (let i = 0; i < 5; i++) {
        const { response } = await signIn(limited, USERS.editor.email, `wrong-${i}`, from('10.0.0.1'));
        assert.equal(response.statusCode, 401);
      }
      // That e-mail from that address is now locked, even with the right password.
      const locked = await signIn(limited, USERS.editor.email, USERS.editor.password, from('10.0.0.1'));
      assert.equal(locked.response.statusCode, 429);
      assert.match(locked.response.body, /Too many failed sign-ins\. Please wait 15 minutes/);
      assert.ok(Number(locked.response.headers['retry-after']) > 800);
      assert.equal(locked.jar.get('certdesk_session'), undefined);
      // The owner, from another address, signs in.
      const owner = await signIn(limited, USERS.editor.email, USERS.editor.password, from('10.0.1.1'));
      assert.equal(owner.response.statusCode, 303);
    } finally {
      await limited.close();
    }
  });

  test('pages carry a strict Content-Security-Policy, framing and referrer protection, and no-store', async () => {
    const res = await app.inject({ url: '/sign-in' });
    const csp = String(res.headers['content-security-policy']);
    assert.match(csp, /default-src 'none'/);
    assert.match(csp, /script-src 'self'(;|$)/);
    assert.match(csp, /frame-ancestors 'none'/);
    assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval/);
    assert.equal(res.headers['x-frame-options'], 'DENY');
    assert.equal(res.headers['referrer-policy'], 'same-origin');
    assert.equal(res.headers['cache-control'], 'no-store');
    assert.doesNotMatch(res.body, /<script>|<style>| style=| on[a-z]+=/i, 'no inline script, style or handler');
  });

  test('the language follows Accept-Language, and ?lang= switches and is remembered', async () => {
    const fr = await app.inject({ url: '/sign-in', headers: { 'accept-language': 'fr-CA,fr;q=0.9,en;q=0.5' } });
    assert.match(fr.body, /<html lang="fr">/);
    assert.match(fr.body, /<h1>Connexion<\/h1>/);
    assert.equal(fr.headers['content-language'], 'fr');
    const ja = await app.inject({ url: '/sign-in?lang=ja', headers: { 'accept-language': 'fr' } });
    assert.match(ja.body, /<html lang="ja">/);
    const cookie = ja.cookies.find((c) => c.name === 'certdesk_lang');
    assert.equal(cookie?.value, 'ja');
    const remembered = await app.inject({ url: '/sign-in', headers: { 'accept-language': 'fr', cookie: 'certdesk_lang=ja' } });
    assert.match(remembered.body, /<html lang="ja">/);
  });

  test('members see only their own credentials and may grant read only; administrators see all', async () => {
    const viewer = await signIn(app, USERS.viewer.email, USERS.viewer.password);
    const page = await app.inject({ url: '/organization', headers: { cookie: viewer.jar.header() } });
    assert.match(page.body, /data-client-id="viewer-client"/);
    assert.doesNotMatch(page.body, /data-client-id="(admin|editor|loner)-client"/);
    assert.match(page.body, /value="enterprise-api-access\/write"[^>]*disabled/);
    const write = await app.inject({
      method: 'POST',
      url: '/organization/credentials',
      headers: { ...FORM_HEADERS, cookie: viewer.jar.header() },
      payload: form({ _csrf: csrfFieldOf(page.body), name: 'mine', scopes: ['enterprise-api-access/read', 'enterprise-api-access/write'] }),
    });
    assert.equal(write.statusCode, 422);
    assert.match(write.body, /Only administrators can grant write access\./);
    const revokeOther = await app.inject({ url: '/organization/credentials/admin-client/revoke', headers: { cookie: viewer.jar.header() } });
    assert.equal(revokeOther.statusCode, 404);
    const revokeOtherPost = await app.inject({
      method: 'POST',
      url: '/organization/credentials/admin-client/revoke',
      headers: { ...FORM_HEADERS, cookie: viewer.jar.header() },
      payload: form({ _csrf: csrfFieldOf(page.body) }),
    });
    assert.equal(revokeOtherPost.statusCode, 404);
    const admin = await signIn(app, USERS.admin.email, USERS.admin.password);
    const adminPage = await app.inject({ url: '/organization', headers: { cookie: admin.jar.header() } });
    for (const name of ['admin', 'editor', 'viewer', 'loner']) assert.match(adminPage.body, new RegExp(`data-client-id="${name}-client"`));
    assert.doesNotMatch(adminPage.body, /other-client/, 'never another organization’s');
  });

  test('a created credential is shown once with its secret, which is stored only as a hash', async () => {
    const { jar } = await signIn(app, USERS.editor.email, USERS.editor.password);
    const page = await app.inject({ url: '/organization', headers: { cookie: jar.header() } });
    const res = await app.inject({
      method: 'POST',
      url: '/organization/credentials',
      headers: { ...FORM_HEADERS, cookie: jar.header() },
      payload: form({ _csrf: csrfFieldOf(page.body), name: '<b>CI</b>', scopes: 'enterprise-api-access/read' }),
    });
    // Post/redirect/get: the POST answers a redirect to a one-time page.
    assert.equal(res.statusCode, 303);
    const location = String(res.headers.location);
    assert.match(location, /^\/organization\/credentials\/created\/[A-Za-z0-9_-]{32}$/);
    const shown = await app.inject({ url: location, headers: { cookie: jar.header() } });
    assert.equal(shown.statusCode, 200);
    assert.equal(shown.headers['cache-control'], 'no-store');
    const secret = /id="client-secret"[^>]*>([^<]+)</.exec(shown.body)?.[1];
    const clientId = /id="client-id"[^>]*>([^<]+)</.exec(shown.body)?.[1];
    assert.ok(secret && secret.length >= 43 && clientId);
    assert.match(shown.body, /&lt;b&gt;CI&lt;\/b&gt;/, 'the name is escaped');
    assert.match(shown.body, /TOKEN=\$\(curl -s -u .* -d grant_type=client_credentials .*\n.*curl -s -H &quot;Authorization: Bearer \$TOKEN&quot;/);
    const reload = await app.inject({ url: location, headers: { cookie: jar.header() } });
    assert.equal(reload.statusCode, 303, 'a reload shows the secret no more');
    assert.equal(reload.headers.location, '/organization#credentials');
    const clients = await getDb().db.selectFrom('api_clients').select('client_id').where('name', '=', '<b>CI</b>').execute();
    assert.equal(clients.length, 1, 'one credential');
    const stored = await getDb().db.selectFrom('api_clients').selectAll().where('client_id', '=', clientId).executeTakeFirstOrThrow();
    assert.equal(stored.secret_hash, `sha256:${createHash('sha256').update(secret).digest('hex')}`);
    const later = await app.inject({ url: '/organization', headers: { cookie: jar.header() } });
    assert.ok(later.body.includes(clientId));
    assert.ok(!later.body.includes(secret), 'the secret is never shown again');
  });
});

// The temporary object storage folders this file made (test/helpers/fixtures.ts).
after(removeTemporaryObjectStorages);
