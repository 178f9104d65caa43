/**
 * Bad input from outside (docs/api.md "Text the service refuses", "Errors"): text PostgreSQL cannot store
 * (U+0000, unpaired surrogates) in any string of any request is refused where it enters, a 422 naming the
 * field on the API and the form's own error on the web, with nothing written; a JSON body nested deeper
 * than the bound is a 400 before it is parsed, on every JSON body route; a 422 never echoes more than a
 * short prefix of what it was sent. PGlite always, PostgreSQL when TEST_DATABASE_URL is set.
 */
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { MAX_JSON_DEPTH } from '../../src/http/plugins/json-body.js';
import { MAX_INPUT_CHARS } from '../../src/http/validation/bounded-input.js';
import { catalogues } from '../../src/i18n/index.js';
import { describeOnEachDatabase } from '../helpers/database.js';
import { snapshotTables } from '../helpers/db-snapshot.js';
import { TINY_PNG_BASE64 } from '../helpers/fixtures.js';
import { CUSTOMER_ORG, get, openOrder, openReviewWorld, postForm, sendJson, type ReviewWorld } from '../review/review-world.js';
import { signIn } from '../web/web-test-helpers.js';

const UPLOAD_ID = '0a0a0a0a-0000-4000-8000-0000000000b1';
const ENDPOINT_ID = '0a0a0a0a-0000-4000-8000-0000000000e1';
const CLAIM_ID = '0a0a0a0a-0000-4000-8000-0000000000c1';
const BAD = { nul: 'a\u0000b', 'lone high surrogate': 'a\uD800b', 'lone low surrogate': '\uDC00' } as const;
const CODE = { nul: 'U+0000', 'lone high surrogate': 'U+D800', 'lone low surrogate': 'U+DC00' } as const;

interface Issue {
  type: string;
  loc: Array<string | number>;
  msg: string;
  input: unknown;
  ctx?: Record<string, unknown>;
}

const unstorableMsg = (lang: 'en' | 'fr', character: string) => catalogues[lang]['validation.unstorable_character'].replace('{character}', character);
const deep = (levels: number, inner = '1') => `${'['.repeat(levels)}${inner}${']'.repeat(levels)}`;

describeOnEachDatabase('bad input from outside', (getDb) => {
  let w: ReviewWorld;

  before(async () => {
    w = await openReviewWorld(getDb(), 4);
  });
  after(async () => {
    await w?.close();
  });

  const api = (method: string, url: string, payload?: string, headers: Record<string, string> = {}) =>
    w.app.inject({ method: method as 'POST', url, headers: { authorization: `Bearer ${w.customerToken}`, 'content-type': 'application/json', ...headers }, payload });
  const issuesOf = (res: LightMyRequestResponse): Issue[] => (res.json() as { detail: Issue[] }).detail;

  /** The API's JSON write routes with a body that is valid but for the one string under test. */
  const jsonWrites = (text: string): Array<{ method: string; url: string; body: Record<string, unknown>; loc: Array<string | number> }> => [
    { method: 'POST', url: '/v1/uploads', body: { file_name: `${text}.png`, content_type: 'image/png', size: 10 }, loc: ['body', 'file_name'] },
    { method: 'POST', url: '/v1/uploads', body: { file_name: 'a.png', content_type: `image/${text}`, size: 10 }, loc: ['body', 'content_type'] },
    { method: 'POST', url: '/v1/orders', body: { upload_id: UPLOAD_ID, project_id: null, order_title: text }, loc: ['body', 'order_title'] },
    { method: 'POST', url: '/v1/orders', body: { upload_id: UPLOAD_ID, project_id: null, order_title: 'T', ordered_by: text }, loc: ['body', 'ordered_by'] },
    { method: 'POST', url: '/v1/orders', body: { upload_id: UPLOAD_ID, project_id: null, order_title: 'T', tags: ['ok', text] }, loc: ['body', 'tags', 1] },
    { method: 'POST', url: '/v1/orders', body: { upload_id: UPLOAD_ID, project_id: null, order_title: 'T', [`x${text}`]: 1 }, loc: ['body', `x${text}`] },
    { method: 'POST', url: '/v1/webhook-endpoints', body: { url: 'https://hooks.example/h', events: ['order.created'], description: text }, loc: ['body', 'description'] },
    { method: 'PATCH', url: `/v1/webhook-endpoints/${ENDPOINT_ID}`, body: { description: text }, loc: ['body', 'description'] },
    { method: 'POST', url: '/v1/orders/x-action/responses', body: { message: text }, loc: ['body', 'message'] },
  ];

  it('the API: every string of every body, path and query with NUL or an unpaired surrogate is a 422 naming the field; nothing is written', async () => {
    const before = await snapshotTables(getDb().db);
    for (const [kind, text] of Object.entries(BAD) as Array<[keyof typeof BAD, string]>) {
      for (const write of jsonWrites(text)) {
        const res = await api(write.method, write.url, JSON.stringify(write.body));
        const where = `${kind}: ${write.method} ${write.url} ${JSON.stringify(write.loc)}`;
        assert.equal(res.statusCode, 422, `${where}: ${res.body.slice(0, 300)}`);
        const issue = issuesOf(res).find((i) => JSON.stringify(i.loc) === JSON.stringify(write.loc));
        assert.ok(issue, `${where}: ${res.body.slice(0, 300)}`);
        assert.equal(issue.type, 'value_error');
        assert.equal(issue.msg, unstorableMsg('en', CODE[kind]));
        assert.deepEqual(issue.ctx, { reason: `the text contains ${CODE[kind]}, which cannot be stored` });
      }
    }
    // Path, query and header parameters, through the same validator; the message in the caller's language.
    const path = await api('GET', '/v1/orders/q1%00', undefined, { lang: 'fr' });
    assert.equal(path.statusCode, 422, path.body);
    assert.deepEqual(issuesOf(path), [{ type: 'value_error', loc: ['path', 'order_id'], msg: unstorableMsg('fr', 'U+0000'), input: 'q1\u0000', ctx: { reason: 'the text contains U+0000, which cannot be stored' } }]);
    const query = await api('GET', `/v1/orders?project_id=${encodeURIComponent('All Projects\u0000')}`);
    assert.equal(query.statusCode, 422, query.body);
    assert.deepEqual(issuesOf(query).map((i) => i.loc), [['query', 'project_id']]);
    const header = await api('POST', '/v1/uploads', JSON.stringify({ file_name: 'a.png', content_type: 'image/png', size: 10 }), { 'idempotency-key': 'k\uD800' });
    assert.equal(header.statusCode, 422, header.body);
    assert.deepEqual(issuesOf(header).map((i) => i.loc), [['header', 'Idempotency-Key']]);
    // A multipart order: a form field and the file's name.
    for (const [name, value, filename, loc] of [['order_title', 'a\u0000', 'a.png', ['body', 'order_title']], ['order_title', 'T', 'a\u0000.png', ['body', 'file']]] as const) {
      const form = new FormData();
      form.set(name, value);
      form.set('file', new Blob([Buffer.from(TINY_PNG_BASE64, 'base64')], { type: 'image/png' }), filename);
      const request = new Request('http://x/', { method: 'POST', body: form });
      const res = await w.app.inject({ method: 'POST', url: '/v1/orders', headers: { authorization: `Bearer ${w.customerToken}`, 'content-type': request.headers.get('content-type')! }, payload: Buffer.from(await request.arrayBuffer()) });
      assert.equal(res.statusCode, 422, res.body);
      assert.ok(issuesOf(res).some((i) => JSON.stringify(i.loc) === JSON.stringify(loc) && i.type === 'value_error'), res.body);
    }
    assert.deepEqual(await snapshotTables(getDb().db), before, 'nothing was written');
  });

  it('the web: the form’s own error (webhook form, review decision and revocation, sign-in), a page naming the field elsewhere; nothing is written', async () => {
    // q3 certified (its review page then has the revocation form); q1 opened, so claimed by rita.
    const { claimId: q3Claim } = await openOrder(w, 'rita', 'q3');
    assert.equal((await postForm(w, 'rita', '/review/orders/q3/decision', { decision: 'certify', note: 'human', claim_id: q3Claim! })).statusCode, 200);
    const { claimId } = await openOrder(w, 'rita', 'q1');
    const before = await snapshotTables(getDb().db);
    const en = catalogues.en;
    const fieldError = en['web.form.refused_text'].replace('{character}', 'U+0000');
    // The webhook form: shown again (422) with the error on the description, the posted text made displayable.
    const webhook = await postForm(w, 'customer', '/organization/webhooks', { url: 'https://hooks.example/h', events: 'order.created', description: 'keep\u0000me' });
    assert.equal(webhook.statusCode, 422, webhook.body.slice(0, 300));
    assert.match(webhook.body, /<title>New webhook endpoint/);
    assert.ok(webhook.body.includes(`<p class="field-error" id="wh-description-error">${fieldError}</p>`), 'the error sits on the description field');
    assert.ok(webhook.body.includes('keep\uFFFDme') && !webhook.body.includes('\u0000'), 'the posted text is shown again without the NUL');
    const edit = await postForm(w, 'customer', `/organization/webhooks/${ENDPOINT_ID}/edit`, { url: 'https://hooks.example/h', events: 'order.created', description: '\u0000' });
    assert.equal(edit.statusCode, 404, 'an endpoint that does not exist is the 404 page before any form error');
    // The review decision's note and the revocation's reason (a form carries NUL; an unpaired surrogate
    // cannot survive URL encoding): the review page again with the form's error.
    const decision = await postForm(w, 'rita', '/review/orders/q1/decision', { decision: 'certify', note: 'fine\u0000', claim_id: claimId! });
    assert.equal(decision.statusCode, 422, decision.body.slice(0, 300));
    assert.match(decision.body, /<title>Title of q1/);
    assert.ok(decision.body.includes(fieldError));
    const revoke = await postForm(w, 'rita', '/review/orders/q3/certificate/revoke', { reason: 'copied\u0000' });
    assert.equal(revoke.statusCode, 422, revoke.body.slice(0, 300));
    assert.match(revoke.body, /<title>Title of q3/);
    assert.ok(revoke.body.includes(fieldError));
    // Links and pages without a form of their own: a 422 page naming the parameter.
    for (const [who, url, field] of [['customer', '/organization?revoked=%00', 'revoked'], ['rita', '/review?organization=%00', 'organization'], ['rita', `/review?organization=${CUSTOMER_ORG}%00`, 'organization'], ['customer', '/orders/q1%00', 'orderId']] as const) {
      const res = await get(w, who, url);
      assert.equal(res.statusCode, 422, `${url}: ${res.body.slice(0, 200)}`);
      assert.ok(res.body.includes(en['web.error.refused_text'].replace('{field}', field).replace('{character}', 'U+0000')), `${url} names ${field}`);
    }
    // The sign-in form: shown again with the error, nothing looked up, no session.
    const signInAttempt = await signIn(w.app, `cleo\u0000@customer.example`, 'correct horse battery staple');
    assert.equal(signInAttempt.response.statusCode, 422, signInAttempt.response.body.slice(0, 300));
    assert.match(signInAttempt.response.body, /<form[^>]*action="\/sign-in"/);
    assert.ok(signInAttempt.response.body.includes(fieldError));
    assert.equal(signInAttempt.jar.get('certdesk_session'), undefined, 'no session');
    // The review editor's JSON: the 422 list naming the field, like the API's.
    const edits = await sendJson(w, 'rita', 'PUT', '/review/orders/q1/edits', { claim_id: claimId, annotations: [{ id: 'a\u0000', type: 'RECTANGLE' }] });
    assert.equal(edits.statusCode, 422, edits.body);
    assert.ok(issuesOf(edits).some((i) => JSON.stringify(i.loc) === JSON.stringify(['body', 'annotations', 0, 'id']) && i.type === 'value_error'), edits.body);
    // The upload page's JSON endpoints: their own error shape.
    const upload = await w.app.inject({ method: 'POST', url: '/orders/uploads', headers: { 'content-type': 'application/json', cookie: w.jars.customer.header(), 'x-csrf-token': w.csrf.customer }, payload: JSON.stringify({ file_name: 'a\u0000.png', content_type: 'image/png', size: 10 }) });
    assert.equal(upload.statusCode, 422, upload.body);
    assert.deepEqual(upload.json(), { error: en['web.error.refused_text'].replace('{field}', 'file_name').replace('{character}', 'U+0000') });
    assert.deepEqual(await snapshotTables(getDb().db), before, 'nothing was written');
  });

  it(`JSON nested deeper than ${MAX_JSON_DEPTH} levels is a 400 before parsing, on every JSON body route; the bound itself is not`, async () => {
    const { claimId } = await openOrder(w, 'rita', 'q2');
    const tooDeep = { detail: catalogues.en['errors.json_too_deep'].replace('{max}', String(MAX_JSON_DEPTH)) };
    const apiRoutes: Array<[string, string, (v: string) => string]> = [
      ['POST', '/v1/uploads', (v) => `{"file_name":${v},"content_type":"image/png","size":10}`],
      ['POST', '/v1/orders', (v) => `{"upload_id":"${UPLOAD_ID}","project_id":null,"order_title":${v}}`],
      ['POST', '/v1/webhook-endpoints', (v) => `{"url":"https://hooks.example/h","events":${v}}`],
      ['PATCH', `/v1/webhook-endpoints/${ENDPOINT_ID}`, (v) => `{"description":${v}}`],
      ['POST', '/v1/orders/x-action/responses', (v) => `{"message":"m","upload_ids":${v}}`],
    ];
    const webRoutes: Array<[string, string, (v: string) => string]> = [
      ['PUT', '/review/orders/q2/edits', (v) => `{"claim_id":"${claimId}","annotations":${v}}`],
      ['POST', '/review/orders/q2/claim/renew', (v) => `{"claim_id":${v}}`],
      ['POST', '/orders/uploads', (v) => `{"file_name":${v},"content_type":"image/png","size":10}`],
      ['POST', '/orders/new', (v) => `{"upload_id":"${UPLOAD_ID}","order_title":${v}}`],
    ];
    const send = (web: boolean, method: string, url: string, payload: string) =>
      web
        ? w.app.inject({ method: method as 'POST', url, headers: { 'content-type': 'application/json', cookie: w.jars[url.startsWith('/review') ? 'rita' : 'customer'].header(), 'x-csrf-token': w.csrf[url.startsWith('/review') ? 'rita' : 'customer'] }, payload })
        : api(method, url, payload);
    for (const [web, routes] of [[false, apiRoutes], [true, webRoutes]] as const) {
      for (const [method, url, body] of routes) {
        for (const levels of [5_000, 100_000, MAX_JSON_DEPTH]) {
          const started = performance.now();
          const res = await send(web, method, url, body(deep(levels)));
          assert.equal(res.statusCode, 400, `${method} ${url} at ${levels} levels: ${res.body.slice(0, 200)}`);
          assert.deepEqual(res.json(), tooDeep, `${method} ${url}`);
          assert.ok(performance.now() - started < 5_000, 'answered at once');
        }
        // Within the bound (one level for the body's own object): refused for what it is, never as too deep.
        const within = await send(web, method, url, body(deep(MAX_JSON_DEPTH - 1)));
        assert.notDeepEqual(within.statusCode === 400 ? within.json() : null, tooDeep, `${method} ${url} within the bound`);
        assert.ok(within.statusCode < 500, `${method} ${url}: ${within.statusCode}`);
        // Brackets inside a string are text, not nesting.
        const text = await send(web, method, url, body(JSON.stringify('['.repeat(10_000))));
        assert.ok(text.statusCode !== 400 || JSON.stringify(text.json()) !== JSON.stringify(tooDeep), `${method} ${url}: brackets in a string`);
      }
    }
  });

  it('a 422 echoes at most a short prefix of what it was sent', async () => {
    const long = 'x'.repeat(100_000);
    const res = await api('POST', '/v1/uploads', JSON.stringify({ file_name: [long], content_type: 'image/png', size: 10, [`k${long}`]: 1, nested: { a: { b: { c: { d: { e: 1 } } } } } }));
    assert.equal(res.statusCode, 422, res.body.slice(0, 200));
    assert.ok(res.body.length < 4_000, `the answer is short (${res.body.length} bytes)`);
    const issues = issuesOf(res);
    const fileName = issues.find((i) => i.loc[1] === 'file_name')!;
    assert.deepEqual(fileName.input, [`${'x'.repeat(MAX_INPUT_CHARS)}…`]);
    const extra = issues.find((i) => String(i.loc[1]).startsWith('kx'))!;
    assert.equal(extra.loc[1], `k${'x'.repeat(MAX_INPUT_CHARS - 1)}…`);
    assert.deepEqual(issues.find((i) => i.loc[1] === 'nested')!.input, { a: { b: { c: { d: '…' } } } });
    // A short input is echoed exactly, as pydantic does.
    const short = await api('POST', '/v1/uploads', JSON.stringify({ file_name: ['a.png'], content_type: 'image/png', size: 10 }));
    assert.deepEqual(issuesOf(short)[0]!.input, ['a.png']);
  });
});
