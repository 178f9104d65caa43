/**
 * The served OpenAPI document judged by tools nobody here wrote: Redocly CLI lints it (recommended
 * rules, 0 errors), and openapi-backend validates real answers of the running application against it,
 * the token endpoint's (success, every error status, no-store headers, Retry-After) included.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import addFormats from 'ajv-formats';
import type { LightMyRequestResponse } from 'fastify';
import { OpenAPIBackend } from 'openapi-backend';
import { openTestPglite } from '../helpers/database.js';
import { ACME, USERS } from '../helpers/fixtures.js';
import { startApi, type Api } from './api-harness.js';

const run = promisify(execFile);
const REDOCLY = path.resolve('node_modules/@redocly/cli/bin/cli.js');
const FORM = { 'content-type': 'application/x-www-form-urlencoded' };

describe('OpenAPI document, judged by third-party tools', () => {
  let api: Api;
  let backend: OpenAPIBackend;
  let dir: string;

  before(async () => {
    api = await startApi({ name: 'pglite', open: openTestPglite });
    const res = await api.app.inject({ url: '/openapi.json' });
    dir = mkdtempSync(path.join(tmpdir(), 'certdesk-openapi-'));
    writeFileSync(path.join(dir, 'openapi.json'), res.body);
    backend = new OpenAPIBackend({
      definition: res.json(),
      strict: true,
      validate: true,
      customizeAjv: (ajv) => {
        addFormats.default(ajv);
        return ajv;
      },
    });
    await backend.init();
  });
  after(async () => {
    await api.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** Body and headers of a real answer must be what the document says for this operation and status. */
  function assertDocumented(operationId: string, res: LightMyRequestResponse): void {
    const body = backend.validator.validateResponse(res.json(), operationId, res.statusCode);
    assert.deepEqual(body.errors ?? [], [], `${operationId} ${res.statusCode} body: ${res.body}`);
    assert.equal(body.valid, true);
    // Every documented header that is present has its documented value (presence is asserted by the callers:
    // WWW-Authenticate is documented for 401 but sent only to Basic clients).
    const headers = backend.validator.validateResponseHeaders(res.headers, operationId, { statusCode: res.statusCode });
    assert.deepEqual(headers.errors ?? [], [], `${operationId} ${res.statusCode} headers: ${JSON.stringify(res.headers)}`);
  }

  it('passes `redocly lint` with 0 errors', async () => {
    const { stdout, stderr } = await run(process.execPath, [REDOCLY, 'lint', path.join(dir, 'openapi.json'), '--format=json'], {
      env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', NO_COLOR: '1' },
      maxBuffer: 16 * 1024 * 1024,
    }).catch((err: { stdout: string; stderr: string }) => assert.fail(`redocly lint failed:\n${err.stdout}\n${err.stderr}`));
    const report = JSON.parse(stdout.slice(stdout.indexOf('{'))) as { totals: { errors: number; warnings: number } };
    assert.equal(report.totals.errors, 0, stdout + stderr);
  });

  it('is a valid OpenAPI 3.1 document for openapi-backend, every operation tagged and named', () => {
    const operations = backend.getOperations();
    assert.ok(operations.length >= 5);
    for (const op of operations) {
      assert.ok(op.operationId, `${op.method} ${op.path} has no operationId`);
      assert.ok(op.tags && op.tags.length > 0, `${op.operationId} has no tag`);
    }
    const titles = Object.values((backend.definition.components?.schemas ?? {}) as Record<string, { title?: string }>).map((s) => s.title);
    assert.equal(new Set(titles).size, titles.length, `duplicate schema titles: ${titles.join(', ')}`);
  });

  it('documents the token request that a client really sends (form, Basic or body credentials)', () => {
    const { client_id, client_secret } = { client_id: USERS.editor.clientId, client_secret: USERS.editor.clientSecret };
    const post = backend.validator.validateRequest({
      method: 'post',
      path: '/oauth2/token',
      headers: FORM,
      body: { grant_type: 'client_credentials', client_id, client_secret },
    });
    assert.deepEqual(post.errors ?? [], []);
    const wrongGrant = backend.validator.validateRequest({ method: 'post', path: '/oauth2/token', headers: FORM, body: { grant_type: 'password' } });
    assert.equal(wrongGrant.valid, false, 'the grant type enum is documented');
    const op = backend.getOperation('issue_token_oauth2_token_post')!;
    assert.deepEqual(op.security, [{ ClientBasic: [] }, {}]);
    assert.ok(op.requestBody && 'content' in op.requestBody && op.requestBody.content['application/x-www-form-urlencoded']);
  });

  it('token endpoint: 200 (Basic and body credentials), 400, 401 and 429 answers match the document', async () => {
    const token = (payload: string, headers: Record<string, string> = {}, remoteAddress = '127.0.0.1') =>
      api.app.inject({ method: 'POST', url: '/oauth2/token', headers: { ...FORM, ...headers }, payload, remoteAddress });
    const { clientId, clientSecret } = USERS.editor;
    const basic = `Basic ${Buffer.from(`${clientId}:${clientSecret}`).toString('base64')}`;

    const viaBasic = await token('grant_type=client_credentials', { authorization: basic });
    assert.equal(viaBasic.statusCode, 200, viaBasic.body);
    assert.equal(viaBasic.headers['cache-control'], 'no-store');
    assertDocumented('issue_token_oauth2_token_post', viaBasic);

    const viaBody = await token(new URLSearchParams({ grant_type: 'client_credentials', client_id: clientId, client_secret: clientSecret }).toString());
    assert.equal(viaBody.statusCode, 200, viaBody.body);
    assertDocumented('issue_token_oauth2_token_post', viaBody);

    const errors: Array<[string, Record<string, string>, number, string]> = [
      ['grant_type=client_credentials&grant_type=client_credentials', { authorization: basic }, 400, 'invalid_request'],
      ['grant_type=password', { authorization: basic }, 400, 'unsupported_grant_type'],
      ['grant_type=client_credentials&scope=nope', { authorization: basic }, 400, 'invalid_scope'],
      ['grant_type=client_credentials', { authorization: `Basic ${Buffer.from(`${clientId}:wrong`).toString('base64')}` }, 401, 'invalid_client'],
      ['grant_type=client_credentials', {}, 401, 'invalid_client'],
    ];
    for (const [payload, headers, status, code] of errors) {
      const res = await token(payload, headers);
      assert.equal(res.statusCode, status, `${payload}: ${res.body}`);
      assert.equal(res.json().error, code);
      assert.equal(res.headers['cache-control'], 'no-store');
      assertDocumented('issue_token_oauth2_token_post', res);
    }

    // Brute force from one address: the 11th failure within the window is refused with Retry-After.
    let limited: LightMyRequestResponse | undefined;
    for (let i = 0; i < 12 && !limited; i++) {
      const res = await token(`grant_type=client_credentials&client_id=ghost-${i}&client_secret=x`, {}, '203.0.113.7');
      if (res.statusCode === 429) limited = res;
    }
    assert.ok(limited, 'no 429 after 12 failed attempts');
    assert.match(String(limited.headers['retry-after']), /^[1-9]\d*$/);
    assertDocumented('issue_token_oauth2_token_post', limited);
  });

  it('/v1 answers (200, 401, 404, 422) match the document', async () => {
    const cases: Array<[string, string, number]> = [
      ['get_projects_v1_projects_get', '/v1/projects', 200],
      ['get_orders_v1_orders_get', '/v1/orders?project_id=All%20Projects&limit=5', 200],
      ['get_orders_v1_orders_get', '/v1/orders?project_id=All%20Projects&limit=5&preview=true', 200],
      ['get_organization_members_v1_organizations__organization_id__members_get', `/v1/organizations/${ACME.id}/members`, 200],
      ['get_project_v1_projects__project_id__get', '/v1/projects/00000000-0000-4000-8000-000000000000', 404],
      ['get_orders_v1_orders_get', '/v1/orders?project_id=All%20Projects&limit=0', 422],
    ];
    const projects = (await api.get('/v1/projects', 'admin')).json() as Array<{ id: string }>;
    assert.ok(projects.length > 0);
    cases.push(['get_project_v1_projects__project_id__get', `/v1/projects/${projects[0]!.id}`, 200]);
    for (const [operationId, url, status] of cases) {
      const res = await api.get(url, 'admin');
      assert.equal(res.statusCode, status, `${url}: ${res.body}`);
      assertDocumented(operationId, res);
    }
    const anonymous = await api.get('/v1/projects', null);
    assert.equal(anonymous.statusCode, 401);
    assertDocumented('get_projects_v1_projects_get', anonymous);
  });

  it('declares the answers of the HTTP layer (400, 414, 431, 500, 503) on every operation, and 400/414 answers match it', async () => {
    const doc = (await api.app.inject({ url: '/openapi.json' })).json() as {
      paths: Record<string, Record<string, { operationId: string; responses: Record<string, unknown> }>>;
    };
    for (const [url, operations] of Object.entries(doc.paths)) {
      for (const [method, operation] of Object.entries(operations)) {
        const expected = ['400', '431', '500', '503', ...(url.includes('{') ? ['414'] : [])];
        for (const status of expected) assert.ok(status in operation.responses, `${method} ${url} declares ${status}`);
        // A 503 (the database unreachable) always says when to retry; test/faults checks real ones against this.
        const unavailable = backend.getOperation(operation.operationId)!.responses!['503'] as { headers?: Record<string, unknown> };
        assert.ok(unavailable.headers?.['Retry-After'], `${method} ${url} documents Retry-After on 503`);
      }
    }
    // What the fuzzer found: a parameter too long for the router, and a URL that does not decode.
    const cases: Array<[string, string, number]> = [
      ['get_project_v1_projects__project_id__get', `/v1/projects/${'a'.repeat(300)}`, 414],
      ['get_project_v1_projects__project_id__get', '/v1/projects/%E0%A4%A', 400],
      ['get_organization_members_v1_organizations__organization_id__members_get', `/v1/organizations/${'b'.repeat(300)}/members`, 414],
      ['get_organization_members_v1_organizations__organization_id__members_get', '/v1/organizations/%zz/members', 400],
    ];
    for (const [operationId, url, status] of cases) {
      const res = await api.get(url, 'admin');
      assert.equal(res.statusCode, status, `${url}: ${res.body}`);
      assertDocumented(operationId, res);
    }
  });
});
