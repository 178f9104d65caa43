/**
 * The cross-tenant property over every read route the served OpenAPI document lists (so new routes are
 * covered without editing this file), plus presigned object URLs: in a generated world of several
 * organizations, any caller of organization A naming anything of organization B (its id, project ids,
 * order ids, e-mails, client ids, object keys, names, page tokens minted for B's callers) gets exactly
 * the answer a thing that does not exist gets, and no answer to A ever contains an identifier, name,
 * e-mail or key of B.
 *
 * The same property covers every write route of the document (POST, PATCH, PUT, DELETE): naming another
 * organization's order, project, webhook endpoint or anything else answers exactly as naming nothing, and
 * the database is unchanged afterwards, row for row (test/helpers/db-snapshot.ts).
 *
 * Runs on PGlite always and on PostgreSQL when TEST_DATABASE_URL is set. TENANT_SEED replays a world;
 * TENANT_PROBES (default 400) sets the number of generated probes per database (reads and writes each).
 */
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import fc from 'fast-check';
import type { FastifyInstance } from 'fastify';
import { loadSeed } from '../../src/domain/seed/seed.js';
import { buildTestApp } from '../helpers/app.js';
import { describeOnEachDatabase } from '../helpers/database.js';
import { temporaryObjectStorage, removeTemporaryObjectStorages } from '../helpers/fixtures.js';
import { OpenApiValidator } from '../helpers/openapi.js';
import { apiTestConfig, obtainToken } from '../http/api-harness.js';
import { snapshotTables } from '../helpers/db-snapshot.js';
import { assertAnswerShape } from './answer-shapes.js';
import { fillPath, listOperations, type Operation, type OperationParameter } from './openapi-operations.js';
import { tenantWorld, type Tenant, type TenantUser, type TenantWorld } from './tenant-world.js';

const SEED = process.env.TENANT_SEED ? Number(process.env.TENANT_SEED) : Date.now() % 2 ** 31;
const PROBES = Number(process.env.TENANT_PROBES ?? 400);
const ALL = 'All Projects';
const PERSONAL = 'Personal Certificates';

interface Caller {
  tenant: Tenant;
  user: TenantUser;
  token: string;
}

/** A read request: operation and parameter values (path and query), unencoded. */
interface ReadRequest {
  operation: Operation;
  values: Record<string, string>;
}

interface Answer {
  status: number;
  body: string;
  /** The answer is JSON (the transparency log's public routes answer text and bytes). */
  json: boolean;
}

function isStringParameter(p: OperationParameter): boolean {
  return (p.in === 'path' || p.in === 'query') && (p.schema.type === undefined || p.schema.type === 'string');
}

function urlOf(r: ReadRequest): string {
  const path = fillPath(r.operation.path, r.values);
  const query = r.operation.parameters
    .filter((p) => p.in === 'query' && r.values[p.name] !== undefined)
    .map((p) => `${encodeURIComponent(p.name)}=${encodeURIComponent(r.values[p.name]!)}`);
  return query.length > 0 ? `${path}?${query.join('&')}` : path;
}

/** A UUID no organization has, numbered so controls never collide. */
function randomUuid(n: number): string {
  return `eeeeeeee-0000-4000-8000-${String(n).padStart(12, '0')}`;
}

/** The strings of the `others` organizations found in `text`, once what the caller itself sent (echoed by a 422) is taken out. */
function leaksOf(text: string, others: Tenant[], sent: string[]): string[] {
  let scrubbed = text;
  for (const s of sent) if (s) scrubbed = scrubbed.split(JSON.stringify(s).slice(1, -1)).join('<sent>').split(s).join('<sent>');
  return others.flatMap((t) => t.secrets.filter((s) => scrubbed.includes(s) || scrubbed.includes(JSON.stringify(s).slice(1, -1))));
}

describeOnEachDatabase('cross-tenant isolation over every read and write route', (getDb) => {
  let app: FastifyInstance;
  let openapi: OpenApiValidator;
  let world: TenantWorld;
  let callers: Caller[];
  let reads: Operation[];
  /** Per caller: read requests of its own organization that answer 200 (the starting points of probes). */
  const ownReads = new Map<Caller, ReadRequest[]>();
  /** Per tenant: page tokens minted for its callers, with the filter they were minted for. */
  const pageTokens = new Map<Tenant, Array<{ token: string; filter: string }>>();
  /** Presigned object URLs answered to each tenant's callers. */
  const objectUrls = new Map<Tenant, string[]>();

  const send = async (caller: Caller | null, url: string): Promise<Answer> => {
    const res = await app.inject({ method: 'GET', url, headers: caller ? { authorization: `Bearer ${caller.token}` } : {} });
    return { status: res.statusCode, body: res.body, json: /^application\/json\b/.test(String(res.headers['content-type'] ?? '')) };
  };
  /** Per tenant: the webhook endpoint its administrator made (so endpoint routes have something to name). */
  const endpointIds = new Map<Tenant, string[]>();

  before(async () => {
    world = fc.sample(tenantWorld(), { seed: SEED, numRuns: 1 })[0]!;
    const { dir, storage } = temporaryObjectStorage();
    await loadSeed(getDb().db, storage, world.seed);
    // Webhook endpoints may point anywhere here: nothing is delivered (no order changes during the probes).
    app = await buildTestApp({ config: apiTestConfig(dir, { WEBHOOK_ALLOW_PRIVATE: 'true' }), database: getDb() });
    await app.ready();
    openapi = await OpenApiValidator.fromApp(app);
    reads = listOperations(openapi.document).filter((op) => op.method === 'GET');
    callers = [];
    for (const tenant of world.tenants) {
      for (const user of tenant.users) callers.push({ tenant, user, token: await obtainToken(app, user.clientId, user.clientSecret) });
      const admin = callers.find((c) => c.tenant === tenant && c.user.isAdmin)!;
      const res = await app.inject({
        method: 'POST',
        url: '/v1/webhook-endpoints',
        headers: { authorization: `Bearer ${admin.token}`, 'content-type': 'application/json' },
        payload: JSON.stringify({ url: `http://127.0.0.1:9/${tenant.tag}`, events: ['order.created'], description: `hook ${tenant.tag}` }),
      });
      assert.equal(res.statusCode, 201, res.body);
      const id = (res.json() as { id: string }).id;
      endpointIds.set(tenant, [id]);
      tenant.secrets.push(id, `hook ${tenant.tag}`);
    }
  });
  after(async () => {
    await app?.close();
  });

  it('every caller reads its own organization without a trace of another', async (t) => {
    t.diagnostic(`seed ${SEED} (replay with TENANT_SEED=${SEED}); ${world.tenants.length} organizations, ${callers.length} users, ` +
      `${world.tenants.reduce((n, x) => n + x.projects.length, 0)} projects, ${world.tenants.reduce((n, x) => n + x.orderIds.length, 0)} orders; ` +
      `read routes: ${reads.map((r) => r.path).join(', ')}`);
    let answers = 0;
    for (const caller of callers) {
      const others = world.tenants.filter((x) => x !== caller.tenant);
      // Order ids too, so the routes of one order (the order, its history) start from a 200 and are probed.
      const own = [ALL, PERSONAL, caller.tenant.id, ...caller.tenant.projects.map((p) => p.id), ...caller.tenant.orderIds, ...(endpointIds.get(caller.tenant) ?? [])];
      const found: ReadRequest[] = [];
      for (const operation of reads) {
        const slots = operation.parameters.filter(isStringParameter);
        const required = slots.filter((p) => p.required);
        // Each required string parameter in turn takes each of the caller's own values; the others
        // keep the first value that worked, so every route is reached without a cartesian product.
        const base: Record<string, string> = {};
        for (const p of required) base[p.name] = own[0]!;
        const tries: Array<Record<string, string>> = required.length === 0 ? [{}] : required.flatMap((p) => own.map((v) => ({ ...base, [p.name]: v })));
        for (const values of tries) {
          const request = { operation, values };
          const answer = await send(caller, urlOf(request));
          answers++;
          assert.ok(answer.status < 500, `${urlOf(request)}: ${answer.status}`);
          assert.deepEqual(leaksOf(answer.body, others, []), [], `${caller.user.email} GET ${urlOf(request)} mentions another organization`);
          if (answer.status !== 200) continue;
          found.push(request);
          // The log's checkpoint, key and tiles are public text and bytes of no organization (checked above).
          if (!answer.json) continue;
          const body = JSON.parse(answer.body) as Record<string, unknown>;
          for (const url of answer.body.match(/https?:\/\/[^"]*\/objects\/[^"]+/g) ?? []) {
            objectUrls.set(caller.tenant, [...(objectUrls.get(caller.tenant) ?? []), url.replace(/\\u0026/g, '&')]);
          }
          if (typeof body.next_page_token === 'string') {
            pageTokens.set(caller.tenant, [...(pageTokens.get(caller.tenant) ?? []), { token: body.next_page_token, filter: values.project_id ?? '' }]);
          }
        }
      }
      // Pages after the first, through page tokens the caller was given.
      const orders = reads.find((op) => op.parameters.some((p) => p.name === 'page_token'));
      if (orders) {
        for (const filter of own.filter((v) => v !== caller.tenant.id)) {
          let token: string | null = null;
          do {
            const url = urlOf({ operation: orders, values: { project_id: filter, limit: '2', ...(token ? { page_token: token } : {}) } });
            const answer = await send(caller, url);
            answers++;
            assert.ok(answer.status === 200 || answer.status === 404, `${url}: ${answer.status} ${answer.body.slice(0, 200)}`);
            assert.deepEqual(leaksOf(answer.body, others, []), [], `${caller.user.email} GET ${url} mentions another organization`);
            token = answer.status === 200 ? ((JSON.parse(answer.body) as { next_page_token: string | null }).next_page_token ?? null) : null;
            if (token) pageTokens.set(caller.tenant, [...(pageTokens.get(caller.tenant) ?? []), { token, filter }]);
          } while (token);
        }
      }
      assert.ok(found.length > 0 || reads.length === 0, `${caller.user.email} can read something of its own`);
      ownReads.set(caller, found);
    }
    t.diagnostic(`${answers} own-organization reads, none mentioning another organization`);
  });

  it(`asking for another organization's things answers exactly as for things that do not exist (${PROBES} probes)`, async (t) => {
    const kinds = ['organization id', 'project id', 'order id', 'e-mail', 'client id', 'object key', 'name', 'page token'] as const;
    type Kind = (typeof kinds)[number];
    const valuesOf = (b: Tenant, kind: Kind): string[] => {
      switch (kind) {
        case 'organization id':
          return [b.id];
        case 'project id':
          return b.projects.map((p) => p.id);
        case 'order id':
          return b.orderIds;
        case 'e-mail':
          return b.users.map((u) => u.email);
        case 'client id':
          return b.users.map((u) => u.clientId);
        case 'object key':
          return b.objectKeys;
        case 'name':
          return [b.name, ...b.projects.map((p) => p.name)];
        case 'page token':
          return (pageTokens.get(b) ?? []).map((p) => p.token);
      }
    };
    /** The same kind of thing, of nobody: the answer B's thing must be indistinguishable from. */
    const nonexistent = (kind: Kind, value: string, n: number): string => {
      if (/^[0-9a-f]{8}-0000-4000-8000-\d{12}$/.test(value)) return `ffffffff-0000-4000-8000-${String(900_000 + n).padStart(12, '0')}`;
      if (kind === 'page token') return value.replace(/.$/, (c) => (c === 'A' ? 'B' : 'A'));
      return value.replace(/t\d+x[a-z]+/g, 'nobody');
    };
    const probeCount = new Map<string, number>();
    let n = 0;
    let probes = 0;
    const probe = fc.record({
      caller: fc.nat(callers.length - 1),
      other: fc.nat(world.tenants.length - 1),
      request: fc.nat(10_000),
      slot: fc.nat(10),
      kind: fc.constantFrom(...kinds),
      preferToken: fc.boolean(),
      pick: fc.nat(100),
    });
    await fc.assert(
      fc.asyncProperty(probe, async (p) => {
        const caller = callers[p.caller]!;
        const others = world.tenants.filter((x) => x !== caller.tenant);
        const b = others[p.other % others.length]!;
        const ownRequests = ownReads.get(caller)!;
        const base = ownRequests[p.request % ownRequests.length]!;
        const slots = base.operation.parameters.filter(isStringParameter);
        if (slots.length === 0) {
          // A route without parameters: nothing to name, but its answer must not mention B.
          const answer = await send(caller, urlOf(base));
          assert.deepEqual(leaksOf(answer.body, others, []), [], `${caller.user.email} GET ${urlOf(base)} mentions another organization`);
          return;
        }
        const slot = slots[p.slot % slots.length]!;
        // A page_token slot gets B's page tokens half the time; any slot may get any kind of B's things.
        let kind: Kind = slot.name === 'page_token' && p.preferToken && valuesOf(b, 'page token').length > 0 ? 'page token' : p.kind;
        if (valuesOf(b, kind).length === 0) kind = 'organization id';
        const candidates = valuesOf(b, kind);
        const value = candidates[p.pick % candidates.length]!;
        const control = nonexistent(kind, value, n++);
        const foreign = { operation: base.operation, values: { ...base.values, [slot.name]: value } };
        const absent = { operation: base.operation, values: { ...base.values, [slot.name]: control } };
        const [got, expected] = [await send(caller, urlOf(foreign)), await send(caller, urlOf(absent))];
        const key = `${base.operation.path} ${slot.name}=${kind} → ${got.status}`;
        probes++;
        probeCount.set(key, (probeCount.get(key) ?? 0) + 1);
        const where = `${caller.user.email} GET ${urlOf(foreign)} (control ${urlOf(absent)})`;
        assert.equal(got.status, expected.status, `${where}: status ${got.status}, a thing that does not exist gets ${expected.status}`);
        assert.equal(got.body.split(JSON.stringify(value).slice(1, -1)).join('<x>'), expected.body.split(JSON.stringify(control).slice(1, -1)).join('<x>'), `${where}: bodies differ`);
        assert.deepEqual(leaksOf(got.body, world.tenants.filter((x) => x !== caller.tenant), [value]), [], `${where} mentions another organization`);
        assertAnswerShape(openapi, { method: 'GET', operation: base.operation, exactRoute: true, url: urlOf(foreign) }, got.status, { 'content-type': 'application/json' }, got.body);
      }),
      { seed: SEED, numRuns: PROBES },
    );
    t.diagnostic(`${probes} probes (each against a control that does not exist); by route, parameter, kind and answer: ${[...probeCount].sort().map(([k, v]) => `${k}: ${v}`).join('; ')}`);
    assert.ok(probeCount.size > 0, 'some probes ran');
  });

  it(`naming another organization's things in a write answers exactly as naming nothing, and nothing changes (${PROBES} probes)`, async (t) => {
    const writes = listOperations(openapi.document).filter((op) => op.method !== 'GET' && op.method !== 'HEAD' && op.path !== '/oauth2/token');
    /** What of B a slot can name, by the slot's name (any slot may get any kind too). */
    const foreignValues = (b: Tenant, slot: string): string[] => {
      if (slot === 'order_id') return b.orderIds;
      if (slot === 'endpoint_id') return endpointIds.get(b) ?? [];
      if (slot === 'project_id') return b.projects.map((p) => p.id);
      if (slot === 'organization_id') return [b.id];
      return [b.id, ...b.orderIds, ...b.projects.map((p) => p.id), ...(endpointIds.get(b) ?? []), ...b.users.map((u) => u.email)];
    };
    const ownValue = (a: Tenant, slot: string): string => {
      if (slot === 'order_id') return a.orderIds[0] ?? 'no-order';
      if (slot === 'endpoint_id') return endpointIds.get(a)![0]!;
      return randomUuid(0);
    };
    /** A body the operation accepts but for the names under test (`project_id` is a slot of its own). */
    const bodyOf = (op: Operation, projectId: string | null): unknown => {
      switch (`${op.method} ${op.path}`) {
        case 'POST /v1/orders':
          return { upload_id: randomUuid(1), project_id: projectId, order_title: 'probe' };
        case 'POST /v1/orders/{order_id}/responses':
          return { message: 'probe', upload_ids: [] };
        case 'PATCH /v1/webhook-endpoints/{endpoint_id}':
          return { description: 'probe', status: 'disabled' };
        case 'POST /v1/webhook-endpoints':
          return { url: 'http://127.0.0.1:9/probe', events: ['order.created'] };
        case 'POST /v1/uploads':
          return { file_name: 'probe.png', content_type: 'image/png', size: 10 };
        default:
          return op.body ? {} : undefined;
      }
    };
    const slotsOf = (op: Operation): string[] => [
      ...op.parameters.filter((p) => p.in === 'path').map((p) => p.name),
      ...(JSON.stringify(op.body ?? {}).includes('"project_id"') ? ['body.project_id'] : []),
    ];
    const probed = writes.filter((op) => slotsOf(op).length > 0);
    assert.ok(probed.length > 0, 'the document has write routes that name things');
    const before = await snapshotTables(getDb().db);
    const probeCount = new Map<string, number>();
    let n = 0;
    await fc.assert(
      fc.asyncProperty(fc.record({ caller: fc.nat(callers.length - 1), other: fc.nat(10), op: fc.nat(probed.length - 1), slot: fc.nat(10), pick: fc.nat(100) }), async (p) => {
        const caller = callers[p.caller]!;
        const others = world.tenants.filter((x) => x !== caller.tenant);
        const b = others[p.other % others.length]!;
        const op = probed[p.op]!;
        const slots = slotsOf(op);
        const slot = slots[p.slot % slots.length]!;
        const candidates = foreignValues(b, slot.replace(/^body\./, ''));
        if (candidates.length === 0) return;
        const value = candidates[p.pick % candidates.length]!;
        const control = /^[0-9a-f]{8}-/.test(value) ? randomUuid(900_000 + n++) : `nobody-${n++}`;
        const request = (named: string) => {
          const values: Record<string, string> = {};
          for (const s2 of slots.filter((x) => !x.startsWith('body.'))) values[s2] = s2 === slot ? named : ownValue(caller.tenant, s2);
          const body = bodyOf(op, slot === 'body.project_id' ? named : null);
          return app.inject({
            method: op.method as 'POST',
            url: fillPath(op.path, values),
            headers: { authorization: `Bearer ${caller.token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
            ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
          });
        };
        const [got, expected] = [await request(value), await request(control)];
        const where = `${caller.user.email} ${op.method} ${op.path} ${slot}=${value} (control ${control})`;
        probeCount.set(`${op.method} ${op.path} ${slot} → ${got.statusCode}`, (probeCount.get(`${op.method} ${op.path} ${slot} → ${got.statusCode}`) ?? 0) + 1);
        assert.ok(got.statusCode >= 400 && got.statusCode < 500, `${where}: ${got.statusCode} ${got.body.slice(0, 200)}`);
        assert.equal(got.statusCode, expected.statusCode, `${where}: a thing that does not exist gets ${expected.statusCode}`);
        assert.equal(got.body.split(JSON.stringify(value).slice(1, -1)).join('<x>'), expected.body.split(JSON.stringify(control).slice(1, -1)).join('<x>'), `${where}: bodies differ`);
        assert.deepEqual(leaksOf(got.body, others, [value]), [], `${where} mentions another organization`);
      }),
      { seed: SEED, numRuns: PROBES },
    );
    assert.deepEqual(await snapshotTables(getDb().db), before, 'no write of any probe changed the database');
    t.diagnostic(`write routes probed: ${probed.map((op) => `${op.method} ${op.path}`).join(', ')}; by route, slot and answer: ${[...probeCount].sort().map(([k, v]) => `${k}: ${v}`).join('; ')}`);
  });

  it("another organization's object keys under a caller's own presigned URL are refused like keys that do not exist", async (t) => {
    let probes = 0;
    for (const a of world.tenants) {
      for (const url of (objectUrls.get(a) ?? []).slice(0, 4)) {
        const parsed = new URL(url);
        for (const b of world.tenants.filter((x) => x !== a)) {
          for (const key of b.objectKeys.slice(0, 3)) {
            const foreign = `${parsed.pathname.replace(/\/objects\/.*$/, `/objects/${key}`)}${parsed.search}`;
            const absent = `${parsed.pathname.replace(/\/objects\/.*$/, `/objects/${key.replace(b.tag, 'nobody')}`)}${parsed.search}`;
            const [got, expected] = [await send(null, foreign), await send(null, absent)];
            probes++;
            assert.equal(got.status, expected.status, `${foreign}: ${got.status}, a key that does not exist gets ${expected.status}`);
            assert.notEqual(got.status, 200, `${foreign} served B's object`);
            assert.equal(got.body, expected.body);
          }
        }
        // The caller's own URL works: the refusals above are about the key, not a broken URL.
        assert.equal((await send(null, `${parsed.pathname}${parsed.search}`)).status, 200, url);
      }
    }
    t.diagnostic(`${probes} object URL probes`);
  });
});

// The temporary object storage folders this file made (test/helpers/fixtures.ts).
after(removeTemporaryObjectStorages);
