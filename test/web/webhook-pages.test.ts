/**
 * Webhook endpoints on the organization page, in process (app.inject) on every database: who sees and
 * may use each form (administrators only: members get no section and a 403 page; another organization's
 * endpoint is the 404 page), CSRF refusals, validation errors shown on their fields, escaping of hostile
 * URLs and descriptions, the secret shown once (creation and rotation), edit, disable/enable, delete, the
 * delivery log with its paging, "Send again" and "Send test event" delivered to a real local receiver.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { Webhook } from 'standardwebhooks';
import { catalogues } from '../../src/i18n/index.js';
import { getWebhookEndpoint, listWebhookDeliveries } from '../../src/domain/webhooks/webhook-endpoints.service.js';
import { principalFor } from '../../src/domain/principal.js';
import { ALL_SCOPES } from '../../src/contract/schemas.js';
import { describeOnEachDatabase } from '../helpers/database.js';
import { loadStandardFixture, removeTemporaryObjectStorages, USERS, type FixtureUserName } from '../helpers/fixtures.js';
import { startReceiver, type Receiver } from '../webhooks/receiver.js';
import { buildWebApp, csrfFieldOf, CookieJar, FORM_HEADERS, form, signIn } from './web-test-helpers.js';
import type { ObjectStorage } from '../../src/storage/object-storage/object-storage.js';

const en = catalogues.en;
const SCRIPT = '<script>alert(1)</script>';
const ENDPOINT_PATH = /^\/organization\/webhooks\/secret\/[A-Za-z0-9_-]{32}$/;

after(removeTemporaryObjectStorages);

describeOnEachDatabase('webhook pages', (getDb) => {
  let storage: ObjectStorage;
  let app: FastifyInstance;
  let receiver: Receiver;
  const jars = new Map<FixtureUserName, CookieJar>();

  before(async () => {
    ({ storage } = await loadStandardFixture(getDb()));
    receiver = await startReceiver();
    // The receiver listens on 127.0.0.1: private addresses are allowed for the test, as in development.
    app = await buildWebApp(getDb(), storage, { webhookAllowPrivate: true });
    for (const name of ['admin', 'editor', 'viewer', 'other'] as const) {
      const { jar, response } = await signIn(app, USERS[name].email, USERS[name].password);
      assert.equal(response.statusCode, 303);
      jars.set(name, jar);
    }
  });
  after(async () => {
    await app?.close();
    await receiver?.close();
  });

  const get = (as: FixtureUserName, url: string) => app.inject({ url, headers: { cookie: jars.get(as)!.header() } });
  const csrfOf = async (as: FixtureUserName) => csrfFieldOf((await get(as, '/organization')).body);
  const post = async (as: FixtureUserName, url: string, fields: Record<string, string | string[]> = {}, csrf: string | null | undefined = undefined) => {
    const token = csrf === undefined ? await csrfOf(as) : csrf;
    return app.inject({ method: 'POST', url, headers: { ...FORM_HEADERS, cookie: jars.get(as)!.header() }, payload: form(token === null ? fields : { _csrf: token, ...fields }) });
  };
  // The service's own reads check the page against the data (the service only looks at the organization and the admin flag).
  const adminPrincipal = () =>
    principalFor({ userId: 'test-reader', organizationId: USERS.admin.organizationId, email: USERS.admin.email, emailKey: USERS.admin.email, username: USERS.admin.username, isAdmin: true }, null, ALL_SCOPES);
  const service = () => ({ db: getDb().db, masterKey: null, allowPrivate: true });

  /** Adds an endpoint through the form; returns its id and the secret page's body. */
  async function addEndpoint(path: string, fields: Record<string, string | string[]> = {}): Promise<{ id: string; secretPage: LightMyRequestResponse }> {
    const res = await post('admin', '/organization/webhooks', { url: receiver.url(path), events: ['order.created', 'certificate.issued'], description: `receiver ${path}`, ...fields });
    assert.equal(res.statusCode, 303, res.body);
    assert.match(res.headers.location as string, ENDPOINT_PATH);
    const secretPage = await get('admin', res.headers.location as string);
    assert.equal(secretPage.statusCode, 200);
    const id = /href="\/organization\/webhooks\/([0-9a-f-]{36})"/.exec(secretPage.body)?.[1];
    assert.ok(id, 'the secret page links to the endpoint');
    return { id, secretPage };
  }

  /** Runs due jobs until `done` holds (deadline 60 s of real time: the machine may be loaded). */
  async function until(done: () => Promise<boolean>, what: string): Promise<void> {
    const deadline = Date.now() + 60_000;
    while (!(await done())) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
      const ran = await app.services.jobs.worker.runDue();
      if (ran === 0) await new Promise((r) => setTimeout(r, 10));
    }
  }

  test('administrators see the webhooks section; editors and viewers neither see it nor may use a form (403)', async () => {
    const { id } = await addEndpoint('/ok?roles');
    const adminPage = await get('admin', '/organization');
    assert.match(adminPage.body, /id="webhooks"/);
    assert.match(adminPage.body, new RegExp(`data-endpoint-id="${id}"`));
    for (const name of ['editor', 'viewer'] as const) {
      const orgPage = await get(name, '/organization');
      assert.equal(orgPage.statusCode, 200);
      assert.doesNotMatch(orgPage.body, /id="webhooks"|\/organization\/webhooks/, name);
      for (const url of ['/organization/webhooks/new', `/organization/webhooks/${id}`, `/organization/webhooks/${id}/edit`, `/organization/webhooks/${id}/delete`]) {
        const res = await get(name, url);
        assert.equal(res.statusCode, 403, `${name} GET ${url}`);
        assert.match(res.body, new RegExp(en['errors.webhook_admin_only'].replace(/'/g, '&#39;')));
      }
      const posts: Array<[string, Record<string, string | string[]>]> = [
        ['/organization/webhooks', { url: receiver.url('/ok?member'), events: 'order.created' }],
        [`/organization/webhooks/${id}/edit`, { url: receiver.url('/ok?member'), events: 'order.created' }],
        [`/organization/webhooks/${id}/status`, { status: 'disabled' }],
        [`/organization/webhooks/${id}/rotate-secret`, {}],
        [`/organization/webhooks/${id}/test`, {}],
        [`/organization/webhooks/${id}/delete`, {}],
      ];
      for (const [url, fields] of posts) assert.equal((await post(name, url, fields)).statusCode, 403, `${name} POST ${url}`);
    }
    const endpoint = await getWebhookEndpoint(service(), adminPrincipal(), id);
    assert.equal(endpoint.status, 'enabled');
    assert.equal(endpoint.url, receiver.url('/ok?roles'));
  });

  test("another organization's administrator gets the 404 page for every form of an endpoint", async () => {
    const { id } = await addEndpoint('/ok?other');
    for (const url of [`/organization/webhooks/${id}`, `/organization/webhooks/${id}/edit`, `/organization/webhooks/${id}/delete`]) {
      assert.equal((await get('other', url)).statusCode, 404, url);
    }
    for (const [url, fields] of [
      [`/organization/webhooks/${id}/edit`, { url: receiver.url('/ok?stolen'), events: 'order.created' }],
      [`/organization/webhooks/${id}/status`, { status: 'disabled' }],
      [`/organization/webhooks/${id}/rotate-secret`, {}],
      [`/organization/webhooks/${id}/test`, {}],
      [`/organization/webhooks/${id}/delete`, {}],
    ] as const) {
      assert.equal((await post('other', url, fields)).statusCode, 404, url);
    }
    // Globex's own organization page lists nothing of Acme's.
    assert.doesNotMatch((await get('other', '/organization')).body, new RegExp(id));
    const endpoint = await getWebhookEndpoint(service(), adminPrincipal(), id);
    assert.equal(endpoint.url, receiver.url('/ok?other'));
    assert.equal(endpoint.status, 'enabled');
    const { deliveries } = await listWebhookDeliveries(service(), adminPrincipal(), id, {});
    assert.equal(deliveries.length, 0, 'no test event was sent by the other organization');
    // An unknown id, and no id at all, for the administrator too.
    assert.equal((await get('admin', '/organization/webhooks/00000000-0000-4000-8000-000000000000')).statusCode, 404);
    assert.equal((await get('admin', '/organization/webhooks/not-a-uuid')).statusCode, 404);
  });

  test('every form refuses a POST without the session CSRF token (403), and changes nothing', async () => {
    const { id } = await addEndpoint('/ok?csrf');
    const before = (await get('admin', '/organization')).body.match(/data-endpoint-id=/g)?.length;
    for (const [url, fields] of [
      ['/organization/webhooks', { url: receiver.url('/ok?csrf2'), events: 'order.created' }],
      [`/organization/webhooks/${id}/edit`, { url: receiver.url('/ok?changed'), events: 'order.created' }],
      [`/organization/webhooks/${id}/status`, { status: 'disabled' }],
      [`/organization/webhooks/${id}/rotate-secret`, {}],
      [`/organization/webhooks/${id}/test`, {}],
      [`/organization/webhooks/${id}/delete`, {}],
    ] as const) {
      for (const csrf of [null, 'wrong-token']) {
        const res = await post('admin', url, fields, csrf);
        assert.equal(res.statusCode, 403, `${url} with ${csrf}`);
        assert.match(res.body, new RegExp(en['web.error.csrf_title']));
      }
    }
    assert.equal((await get('admin', '/organization')).body.match(/data-endpoint-id=/g)?.length, before);
    const endpoint = await getWebhookEndpoint(service(), adminPrincipal(), id);
    assert.equal(endpoint.url, receiver.url('/ok?csrf'));
    assert.equal(endpoint.status, 'enabled');
  });

  test('validation errors are shown on their fields (422) with the values as posted, escaped', async () => {
    const empty = await post('admin', '/organization/webhooks', { url: '', description: '' });
    assert.equal(empty.statusCode, 422);
    assert.match(empty.body, /role="alert"/);
    assert.match(empty.body, new RegExp(`id="wh-url-error">${en['web.wh.error_url'].replace(/[().]/g, '\\$&')}`));
    assert.match(empty.body, new RegExp(`id="wh-events-error">${en['web.wh.error_events']}`));
    assert.match(empty.body, /id="wh-url"[^>]*aria-describedby="wh-url-help wh-url-error"[^>]*aria-invalid="true"/);

    const hostile = `ftp://x.test/"><img src=x onerror=alert(1)>${SCRIPT}`;
    const refused = await post('admin', '/organization/webhooks', { url: hostile, events: ['order.created'], description: 'x'.repeat(501) });
    assert.equal(refused.statusCode, 422);
    assert.ok(!refused.body.includes(SCRIPT) && !refused.body.includes('<img src=x'), 'the posted URL is escaped');
    assert.ok(refused.body.includes('value="ftp://x.test/&quot;&gt;&lt;img src=x onerror=alert(1)&gt;&lt;script&gt;'), 'and kept in the field');
    assert.match(refused.body, new RegExp(en['web.wh.error_description']));
    assert.match(refused.body, /name="events" value="order.created" checked/);
    // The description's length is a schema error, found before the address rules; fixed, the URL is refused by the service.
    const scheme = await post('admin', '/organization/webhooks', { url: 'ftp://example.com/hook', events: ['order.created'] });
    assert.equal(scheme.statusCode, 422);
    assert.ok(scheme.body.includes(en['web.wh.error_url_refused'].replace('{reason}', 'the scheme must be https or http')), scheme.body);
    // An unknown event (a crafted post) is refused like the API refuses it.
    const unknown = await post('admin', '/organization/webhooks', { url: receiver.url('/ok'), events: ['order.deleted'] });
    assert.equal(unknown.statusCode, 422);
    assert.match(unknown.body, new RegExp(en['web.wh.error_events']));

    const fr = await post('admin', '/organization/webhooks?lang=fr', { url: '', events: ['order.created'] });
    assert.equal(fr.statusCode, 422);
    assert.ok(fr.body.includes(catalogues.fr['web.wh.error_url']));
  });

  test('script payloads in a URL and a description are shown as text everywhere', async () => {
    const description = `${SCRIPT}"><img src=x onerror=alert(2)>`;
    const { id, secretPage } = await addEndpoint(`/ok?q=${encodeURIComponent(SCRIPT)}&a="'`, { description });
    for (const body of [secretPage.body, (await get('admin', '/organization')).body, (await get('admin', `/organization/webhooks/${id}`)).body, (await get('admin', `/organization/webhooks/${id}/edit`)).body, (await get('admin', `/organization/webhooks/${id}/delete`)).body]) {
      assert.ok(!body.includes(SCRIPT) && !body.includes('<img src=x'), 'no markup from data');
    }
    const page = (await get('admin', `/organization/webhooks/${id}`)).body;
    assert.ok(page.includes('&lt;script&gt;alert(1)&lt;/script&gt;&quot;&gt;&lt;img src=x onerror=alert(2)&gt;'), 'the description as text');
  });

  test('adding shows the secret once; edit, disable and enable, rotate (note on the 24 hours) and delete', async () => {
    const { id, secretPage } = await addEndpoint('/ok?lifecycle');
    const secret = /id="webhook-secret" class="secret-value">(whsec_[A-Za-z0-9+/=]+)</.exec(secretPage.body)?.[1];
    assert.ok(secret, 'the secret is on the page');
    assert.match(secret, /^whsec_[A-Za-z0-9+/]{43}=$/);
    assert.ok(secretPage.body.includes(en['web.wh.secret_once']));
    assert.doesNotMatch(secretPage.body, /data-rotation-note/);

    // The page lists the endpoint with its events and status.
    const show = await get('admin', `/organization/webhooks/${id}`);
    assert.equal(show.statusCode, 200);
    assert.match(show.body, /<code>order.created<\/code>/);
    assert.match(show.body, /data-status="enabled"/);
    assert.ok(!show.body.includes(secret), 'the secret is never shown again');

    const edit = await get('admin', `/organization/webhooks/${id}/edit`);
    assert.match(edit.body, /name="events" value="certificate.issued" checked/);
    const saved = await post('admin', `/organization/webhooks/${id}/edit`, { url: receiver.url('/ok?edited'), events: ['order.state_changed'], description: '' });
    assert.equal(saved.statusCode, 303, saved.body);
    assert.equal(saved.headers.location, `/organization/webhooks/${id}?done=updated`);
    const after = await getWebhookEndpoint(service(), adminPrincipal(), id);
    assert.deepEqual([after.url, after.events, after.description], [receiver.url('/ok?edited'), ['order.state_changed'], null]);
    assert.ok((await get('admin', saved.headers.location)).body.includes(en['web.wh.notice_updated']));
    const badEdit = await post('admin', `/organization/webhooks/${id}/edit`, { url: receiver.url('/ok'), description: 'no events' });
    assert.equal(badEdit.statusCode, 422);
    assert.match(badEdit.body, new RegExp(en['web.wh.error_events']));

    const disabled = await post('admin', `/organization/webhooks/${id}/status`, { status: 'disabled' });
    assert.equal(disabled.headers.location, `/organization/webhooks/${id}?done=disabled`);
    assert.equal((await getWebhookEndpoint(service(), adminPrincipal(), id)).status, 'disabled');
    const disabledPage = (await get('admin', disabled.headers.location)).body;
    assert.match(disabledPage, /data-action="test"[^>]*disabled/);
    assert.match(disabledPage, /data-action="enable"/);
    const refusedTest = await post('admin', `/organization/webhooks/${id}/test`);
    assert.equal(refusedTest.statusCode, 409);
    assert.ok(refusedTest.body.includes(en['errors.webhook_endpoint_disabled']));
    assert.equal((await post('admin', `/organization/webhooks/${id}/status`, { status: 'enabled' })).statusCode, 303);
    assert.equal((await getWebhookEndpoint(service(), adminPrincipal(), id)).status, 'enabled');

    const rotated = await post('admin', `/organization/webhooks/${id}/rotate-secret`);
    assert.equal(rotated.statusCode, 303);
    assert.match(rotated.headers.location as string, ENDPOINT_PATH);
    const rotatedPage = await get('admin', rotated.headers.location as string);
    const newSecret = /id="webhook-secret" class="secret-value">(whsec_[A-Za-z0-9+/=]+)</.exec(rotatedPage.body)?.[1];
    assert.ok(newSecret && newSecret !== secret);
    assert.match(rotatedPage.body, /data-rotation-note/);
    assert.ok(rotatedPage.body.includes(en['web.wh.secret_overlap']));
    // A reload, or another session, does not show it again.
    const reload = await get('admin', rotated.headers.location as string);
    assert.equal(reload.statusCode, 303);
    assert.equal(reload.headers.location, '/organization#webhooks');

    const confirm = await get('admin', `/organization/webhooks/${id}/delete`);
    assert.equal(confirm.statusCode, 200);
    assert.ok(confirm.body.includes(en['web.wh.delete_body']));
    const deleted = await post('admin', `/organization/webhooks/${id}/delete`);
    assert.equal(deleted.statusCode, 303);
    assert.equal(deleted.headers.location, '/organization?webhook=deleted#webhooks');
    const orgPage = await get('admin', deleted.headers.location as string);
    assert.ok(orgPage.body.includes(en['web.wh.notice_deleted']));
    assert.doesNotMatch(orgPage.body, new RegExp(`data-endpoint-id="${id}"`));
    assert.equal((await get('admin', `/organization/webhooks/${id}`)).statusCode, 404);
  });

  test('"Send test event" is delivered, signed, to the receiver; the log shows it; "Send again" re-sends it', async () => {
    const { id, secretPage } = await addEndpoint('/ok?test-event');
    const secret = /id="webhook-secret" class="secret-value">(whsec_[A-Za-z0-9+/=]+)</.exec(secretPage.body)![1]!;
    const sent = await post('admin', `/organization/webhooks/${id}/test`);
    assert.equal(sent.statusCode, 303);
    assert.equal(sent.headers.location, `/organization/webhooks/${id}?done=test#deliveries`);
    const toReceiver = () => receiver.received.filter((r) => r.path === '/ok?test-event');
    await until(async () => toReceiver().length === 1, 'the test event');
    const request = toReceiver()[0]!;
    const payload = new Webhook(secret).verify(request.body, request.headers as Record<string, string>) as { type: string; data: Record<string, string> };
    assert.equal(payload.type, 'webhook.test');
    assert.deepEqual(payload.data, { organization_id: USERS.admin.organizationId, endpoint_id: id });

    await until(async () => (await listWebhookDeliveries(service(), adminPrincipal(), id, {})).deliveries[0]?.status === 'succeeded', 'the delivery recorded');
    const log = (await get('admin', `/organization/webhooks/${id}`)).body;
    const [delivery] = (await listWebhookDeliveries(service(), adminPrincipal(), id, {})).deliveries;
    assert.ok(delivery);
    const row = new RegExp(`<tr data-delivery-id="${delivery.id}" data-delivery-status="succeeded">[\\s\\S]*?</tr>`).exec(log)?.[0];
    assert.ok(row, 'the delivery is in the log');
    assert.match(row, /<code>webhook.test<\/code>/);
    assert.ok(row.includes(delivery.event_id));
    assert.match(row, /data-response-status="200"><code>200<\/code>/);
    assert.match(row, /\d+ ms/);
    assert.match(row, /<td class="numeric">1<\/td>/);

    const again = await post('admin', `/organization/webhooks/${id}/deliveries/${delivery.id}/retry`);
    assert.equal(again.statusCode, 303);
    assert.equal(again.headers.location, `/organization/webhooks/${id}?done=retry#deliveries`);
    await until(async () => toReceiver().length === 2, 'the delivery sent again');
    assert.equal(toReceiver()[1]!.headers['webhook-id'], request.headers['webhook-id'], 'same webhook-id');
    await until(async () => (await listWebhookDeliveries(service(), adminPrincipal(), id, {})).deliveries[0]?.attempts === 2, 'the second attempt recorded');
    // Another endpoint's delivery id is not found through this endpoint.
    const { id: otherId } = await addEndpoint('/ok?other-endpoint');
    assert.equal((await post('admin', `/organization/webhooks/${otherId}/deliveries/${delivery.id}/retry`)).statusCode, 404);
  });

  test('the delivery log is paged (20 a page, newest first); an edited page token starts again', async () => {
    const { id } = await addEndpoint('/ok?paging');
    for (let i = 0; i < 21; i++) assert.equal((await post('admin', `/organization/webhooks/${id}/test`)).statusCode, 303);
    const first = (await get('admin', `/organization/webhooks/${id}`)).body;
    assert.equal(first.match(/data-delivery-id=/g)?.length, 20);
    const next = /href="(\/organization\/webhooks\/[^"]+page_token=[^"]+)" rel="next"/.exec(first)?.[1]?.replace(/&amp;/g, '&');
    assert.ok(next, 'a next page link');
    const second = (await get('admin', next)).body;
    assert.equal(second.match(/data-delivery-id=/g)?.length, 1);
    assert.match(second, /rel="first"/);
    const all = (await listWebhookDeliveries(service(), adminPrincipal(), id, { limit: 100 })).deliveries;
    assert.ok(second.includes(`data-delivery-id="${all[20]!.id}"`), 'the oldest on the second page');
    const edited = await get('admin', `/organization/webhooks/${id}?page_token=garbage`);
    assert.equal(edited.statusCode, 200);
    assert.equal(edited.body.match(/data-delivery-id=/g)?.length, 20);
  });
});
