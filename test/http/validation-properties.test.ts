/**
 * Property-based tests of request validation through the real application: whatever query string or
 * path a client sends, the answer is a success, a 404, or a well-formed 422 listing each failing
 * parameter once, in FastAPI's order, with the raw input; never a 500.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Type } from '@sinclair/typebox';
import fc from 'fast-check';
import type { FastifyInstance } from 'fastify';
import { SCOPES } from '../../src/contract/schemas.js';
import { apiResponses } from '../../src/http/openapi/route-docs.js';
import { requireScope } from '../../src/oauth/index.js';
import { openTestPglite } from '../helpers/database.js';
import { startApi, type Api } from './api-harness.js';

/** A probe route with the parameters of GET /v1/orders plus a path parameter, echoing what it got. */
const PROBE_OP = 'get_probe_v1_probe__project_id__get';
function addProbeRoute(app: FastifyInstance): void {
  app.get(
    '/v1/probe/:project_id',
    {
      onRequest: requireScope(SCOPES.read),
      config: { operationName: 'get_probe' },
      schema: {
        params: Type.Object({ project_id: Type.String({ minLength: 36, maxLength: 36 }) }),
        querystring: Type.Object({
          project_id: Type.String(),
          preview: Type.Optional(Type.Boolean({ default: false })),
          page_token: Type.Optional(Type.String()),
          limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, default: 200 })),
        }),
        headers: Type.Object({ lang: Type.Optional(Type.String()) }),
        response: apiResponses(Type.Object({ query: Type.Unknown() })),
      },
    },
    async (request) => ({ query: request.query }),
  );
}

const NAMES = ['project_id', 'preview', 'limit', 'page_token', 'other'] as const;
const QUERY_ORDER = ['project_id', 'preview', 'page_token', 'limit'];

const value = fc.oneof(
  fc.string({ maxLength: 12 }),
  fc.constantFrom('true', 'FALSE', 'Yes', 'off', 't', 'N', '1', '0', 'maybe', ''),
  fc.integer({ min: -5, max: 2000 }).map(String),
  fc.constantFrom(' 5 ', '1_000', '5.0', '1e3', '-0', '+7', '١٢', '9'.repeat(30)),
  fc.string({ unit: 'grapheme', maxLength: 6 }),
);
const pairs = fc.array(fc.tuple(fc.constantFrom(...NAMES), value), { maxLength: 8 });

/** What a server sees for each name: the decoded values, in order. */
function lastValues(list: Array<[string, string]>): Map<string, string> {
  const m = new Map<string, string>();
  for (const [k, v] of list) m.set(k, v);
  return m;
}

interface Item {
  type: string;
  loc: Array<string | number>;
  msg: string;
  input: unknown;
  ctx?: Record<string, unknown>;
}

function checkWellFormed422(items: Item[]): void {
  assert.ok(items.length > 0);
  const rank = (loc: Item['loc']) => ['path', 'query', 'header'].indexOf(String(loc[0]));
  for (let i = 1; i < items.length; i++) assert.ok(rank(items[i - 1]!.loc) <= rank(items[i]!.loc), 'path, then query, then header');
  const seen = new Set(items.map((i) => i.loc.join('.')));
  assert.equal(seen.size, items.length, 'each parameter once');
  for (const item of items) {
    assert.equal(typeof item.msg, 'string');
    assert.ok(item.msg.length > 0);
    assert.ok(!('url' in item));
  }
}

describe('validation properties', () => {
  let api: Api;
  before(async () => {
    api = await startApi({ name: 'pglite', open: openTestPglite }, addProbeRoute);
  });
  after(() => api.close());

  it('random query strings: 200 with typed values, or a 422 naming exactly the bad parameters', async () => {
    await fc.assert(
      fc.asyncProperty(pairs, async (list) => {
        const qs = list.map(([k, v]) => `${k}=${encodeURIComponent(v)}`).join('&');
        const res = await api.get(`/v1/probe/${'a'.repeat(36)}?${qs}`, 'viewer');
        assert.ok(res.statusCode === 200 || res.statusCode === 422, `${res.statusCode} ${res.body}`);
        api.openapi.assertResponse(PROBE_OP, res.statusCode, res.json());
        const sent = lastValues(list);
        if (res.statusCode === 200) {
          const q = (res.json() as { query: Record<string, unknown> }).query;
          assert.equal(typeof q.preview, 'boolean');
          assert.ok(Number.isInteger(q.limit) && (q.limit as number) >= 1 && (q.limit as number) <= 1000);
          assert.equal(q.project_id, sent.get('project_id'));
          return;
        }
        const items = (res.json() as { detail: Item[] }).detail;
        checkWellFormed422(items);
        for (const item of items) {
          assert.equal(item.loc[0], 'query');
          const name = String(item.loc[1]);
          assert.ok(QUERY_ORDER.includes(name), name);
          assert.deepEqual(item.input, sent.has(name) ? sent.get(name) : null, 'input is the raw value received');
        }
        const order = items.map((i) => QUERY_ORDER.indexOf(String(i.loc[1])));
        assert.deepEqual(order, [...order].sort((a, b) => a - b), 'declaration order');
        if (!sent.has('project_id')) assert.ok(items.some((i) => i.type === 'missing' && i.loc[1] === 'project_id'));
      }),
      { numRuns: 300 },
    );
  });

  it('raw, possibly malformed query strings and paths never give a 500', async () => {
    const raw = fc.stringMatching(/^[A-Za-z0-9%=&+._~;:,!$'()*-]{0,40}$/);
    await fc.assert(
      fc.asyncProperty(raw, raw, async (path, qs) => {
        for (const url of [`/v1/probe/${path}?${qs}`, `/v1/projects/${path}?${qs}`]) {
          const res = await api.get(url, 'admin', { lang: 'fr' });
          assert.ok([200, 400, 404, 422].includes(res.statusCode), `${url} → ${res.statusCode} ${res.body}`);
          if (res.statusCode === 422) checkWellFormed422((res.json() as { detail: Item[] }).detail);
          else assert.equal(typeof (res.json() as { detail?: unknown }).detail === 'string' || res.statusCode === 200, true);
        }
      }),
      { numRuns: 300 },
    );
  });

  it('path errors come before query errors', async () => {
    const res = await api.get('/v1/probe/short?limit=0&preview=perhaps', 'admin');
    assert.equal(res.statusCode, 422);
    assert.deepEqual(res.json(), {
      detail: [
        { type: 'string_too_short', loc: ['path', 'project_id'], msg: 'String should have at least 36 characters', input: 'short', ctx: { min_length: 36 } },
        { type: 'missing', loc: ['query', 'project_id'], msg: 'Field required', input: null },
        { type: 'bool_parsing', loc: ['query', 'preview'], msg: 'Input should be a valid boolean, unable to interpret input', input: 'perhaps' },
        { type: 'greater_than_equal', loc: ['query', 'limit'], msg: 'Input should be greater than or equal to 1', input: '0', ctx: { ge: 1 } },
      ],
    });
  });

  it('int_parsing and less_than_equal with the raw input', async () => {
    const res = await api.get(`/v1/probe/${'b'.repeat(36)}?project_id=x&limit=abc`, 'admin');
    assert.deepEqual(res.json(), {
      detail: [{ type: 'int_parsing', loc: ['query', 'limit'], msg: 'Input should be a valid integer, unable to parse string as an integer', input: 'abc' }],
    });
    const big = await api.get(`/v1/probe/${'b'.repeat(36)}?project_id=x&limit=1001`, 'admin');
    assert.deepEqual(big.json(), {
      detail: [{ type: 'less_than_equal', loc: ['query', 'limit'], msg: 'Input should be less than or equal to 1000', input: '1001', ctx: { le: 1000 } }],
    });
  });

  it('authentication runs before validation', async () => {
    const res = await api.get('/v1/probe/short', null);
    assert.equal(res.statusCode, 401);
  });
});
