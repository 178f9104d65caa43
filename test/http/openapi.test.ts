/**
 * The served OpenAPI document: generated from the routes, FastAPI-style operation ids, OAuth 2.0 client
 * credentials, the interface's component names; and /docs served without any CDN.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { openTestPglite } from '../helpers/database.js';
import { startApi, type Api } from './api-harness.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const OPERATIONS: Record<string, [string, string]> = {
  get_projects_v1_projects_get: ['/v1/projects', 'get'],
  get_project_v1_projects__project_id__get: ['/v1/projects/{project_id}', 'get'],
  get_organization_members_v1_organizations__organization_id__members_get: ['/v1/organizations/{organization_id}/members', 'get'],
};

describe('OpenAPI document', () => {
  let api: Api;
  let doc: Json;
  before(async () => {
    api = await startApi({ name: 'pglite', open: openTestPglite });
    doc = api.openapi.document as Json;
  });
  after(() => api.close());

  it('is OpenAPI 3.1 with the interface title and version', () => {
    assert.equal(doc.openapi, '3.1.0');
    assert.equal(doc.info.title, 'Certificate Orders and Projects Service');
    assert.equal(doc.info.version, '1.0.0');
  });

  it('has the FastAPI operation ids, each requiring the read scope and documenting 200 and 422', () => {
    for (const [id, [path, method]] of Object.entries(OPERATIONS)) {
      const op = doc.paths[path]?.[method];
      assert.ok(op, `${method} ${path}`);
      assert.equal(op.operationId, id);
      assert.deepEqual(op.security, [{ OAuth2: ['enterprise-api-access/read'] }]);
      assert.deepEqual(op.responses['422'].content['application/json'].schema, { $ref: '#/components/schemas/HTTPValidationError' });
      assert.equal(op.responses['422'].description, 'Validation Error');
      assert.equal(op.responses['200'].description, 'Successful Response');
      for (const status of ['401', '403']) assert.deepEqual(op.responses[status].content['application/json'].schema, { $ref: '#/components/schemas/ErrorDetail' });
    }
    assert.deepEqual(doc.paths['/v1/projects'].get.responses['200'].content['application/json'].schema, {
      type: 'array',
      items: { $ref: '#/components/schemas/Project' },
    });
  });

  it('documents GET /v1/orders as get_orders_v1_orders_get when the route is present', (t) => {
    const orders = doc.paths['/v1/orders']?.get;
    if (!orders) return t.diagnostic('orders route not registered in this build');
    assert.equal(orders.operationId, 'get_orders_v1_orders_get');
    assert.deepEqual(orders.security, [{ OAuth2: ['enterprise-api-access/read'] }]);
  });

  it('describes the path parameter with its length', () => {
    const [param] = doc.paths['/v1/projects/{project_id}'].get.parameters;
    assert.deepEqual(param, { schema: { minLength: 36, maxLength: 36, type: 'string' }, in: 'path', name: 'project_id', required: true, description: 'Project id (a UUID, 36 characters).' });
  });

  it('declares the OAuth 2.0 client credentials scheme with both scopes', () => {
    const scheme = doc.components.securitySchemes.OAuth2;
    assert.equal(scheme.type, 'oauth2');
    assert.equal(scheme.flows.clientCredentials.tokenUrl, 'https://api.certdesk.test/oauth2/token');
    assert.deepEqual(Object.keys(scheme.flows.clientCredentials.scopes).sort(), ['enterprise-api-access/read', 'enterprise-api-access/write']);
  });

  it('names its components as the interface does, each defined once and every reference resolvable', () => {
    const names = Object.keys(doc.components.schemas);
    for (const name of ['Order', 'OrderPreview', 'HumanOrderState', 'GetOrdersResponse', 'OrderStats', 'HTTPValidationError', 'ValidationError', 'Project', 'DetectionConfig', 'OrganizationMembers', 'Annotation', 'LayerInfo']) {
      assert.ok(names.includes(name), name);
    }
    assert.deepEqual(doc.components.schemas.Project.properties.detection_config, { $ref: '#/components/schemas/DetectionConfig' });
    assert.deepEqual(doc.components.schemas.Order.properties.order_state, { $ref: '#/components/schemas/HumanOrderState' });
    const text = JSON.stringify(doc);
    assert.doesNotMatch(text, /"\$id"/);
    for (const [, ref] of text.matchAll(/"\$ref":"#\/components\/schemas\/([^"]+)"/g)) assert.ok(names.includes(ref!), `dangling $ref ${ref}`);
  });

  it('hides operational routes, the docs, the web application and OAuth internals', () => {
    const paths = Object.keys(doc.paths);
    for (const p of paths) assert.ok(p.startsWith('/v1/') || p === '/oauth2/token' || p.startsWith('/log/'), `unexpected documented path ${p}`);
    // The transparency log's public routes (C2SP tlog-tiles), the tile route as one multi-segment parameter.
    assert.deepEqual(paths.filter((p) => p.startsWith('/log/')).sort(), ['/log/checkpoint', '/log/key', '/log/tile/{tile_path}']);
    if (doc.paths['/oauth2/token']) assert.deepEqual(Object.keys(doc.paths['/oauth2/token']), ['post']);
  });

  it('gives roles their enum, timestamps their date-time format, and the token endpoint its form and answers', () => {
    const schemas = doc.components.schemas;
    assert.deepEqual(schemas.OrderProject.properties.userRole.enum, ['admin', 'editor', 'viewer']);
    assert.equal(schemas.OrderProject.title, 'OrderProject');
    assert.deepEqual(schemas.ProjectMember.properties.role.enum, ['admin', 'editor', 'viewer']);
    assert.equal(schemas.Project.properties.date_created.format, 'date-time');
    assert.equal(schemas.Order.properties.creation_time.format, 'date-time');
    assert.equal(schemas.OrderPreview.properties.creation_time.format, 'date-time');
    assert.ok(JSON.stringify(schemas.Order.properties.review_timestamp).includes('"format":"date-time"'));
    const token = doc.paths['/oauth2/token'].post;
    assert.equal(token.operationId, 'issue_token_oauth2_token_post');
    assert.deepEqual(token.tags, ['oauth2']);
    assert.deepEqual(Object.keys(token.requestBody.content), ['application/x-www-form-urlencoded']);
    assert.deepEqual(Object.keys(token.responses).sort(), ['200', '400', '401', '429', '431', '500', '503']);
    assert.ok(token.responses['429'].headers['Retry-After']);
    // A database outage: RFC 6749's temporarily_unavailable with Retry-After.
    assert.ok(token.responses['503'].headers['Retry-After']);
    assert.ok(JSON.stringify(token.responses['503'].content).includes('temporarily_unavailable'));
    // 431 is answered by Node's HTTP parser before any route runs, so it carries no route header.
    for (const status of Object.keys(token.responses).filter((s) => s !== '431')) assert.deepEqual(token.responses[status].headers['Cache-Control'].schema.enum, ['no-store']);
    assert.deepEqual(doc.components.securitySchemes.ClientBasic, {
      type: 'http',
      scheme: 'basic',
      description: doc.components.securitySchemes.ClientBasic.description,
    });
  });

  it('is the same document at /docs/json', async () => {
    const res = await api.app.inject({ url: '/docs/json' });
    assert.equal(res.statusCode, 200);
    assert.deepEqual(res.json(), doc);
  });

  it('serves the interactive docs and their assets locally, no CDN', async () => {
    const page = await api.app.inject({ url: '/docs/' });
    assert.equal(page.statusCode, 200);
    assert.match(String(page.headers['content-type']), /text\/html/);
    const urls = [...page.body.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]!);
    assert.ok(urls.length > 0);
    for (const u of urls) assert.ok(!/^(https?:)?\/\//.test(u), `external asset ${u}`);
    assert.doesNotMatch(page.body, /unpkg|jsdelivr|cdnjs|cloudflare/);
    for (const u of urls.filter((x) => x.endsWith('.js') || x.endsWith('.css'))) {
      const asset = await api.app.inject({ url: new URL(u, 'http://x/docs/').pathname });
      assert.equal(asset.statusCode, 200, u);
    }
    const init = await api.app.inject({ url: '/docs/static/swagger-initializer.js' });
    assert.equal(init.statusCode, 200);
    // The document is fetched from the service itself and never sent to the public validator service.
    assert.match(init.body, /url: resolveUrl\('\.\/json'\)/);
    assert.match(init.body, /validatorUrl: null/);
    assert.match(page.body, /<title>Certificate Orders and Projects Service<\/title>/);
  });
});
