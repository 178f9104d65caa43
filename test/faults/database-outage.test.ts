/**
 * Fault test: PostgreSQL restarts and stops under load. A cluster of the test's own, the real
 * `certdesk serve` against it, 32 keep-alive connections mixing token requests, API reads and web
 * pages; the cluster is restarted (`pg_ctl restart -m fast`), later stopped and started again.
 *
 * The process must never die; callers see 200 or 503 with Retry-After and the documented bodies;
 * the outage is logged once when it starts and once when it ends; /readyz says down during it; the
 * service comes back by itself.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import addFormats from 'ajv-formats';
import { OpenAPIBackend } from 'openapi-backend';
import { openDatabase } from '../../src/storage/database.js';
import { migrate } from '../../src/storage/migrate.js';
import { loadStandardFixture, USERS } from '../helpers/fixtures.js';
import { LocalDirectoryStorage } from '../../src/storage/object-storage/index.js';
import { PrivateCluster, privateClusterAvailable } from './private-cluster.js';
import { basic, request, ServedProcess, signInCookie, type Answer } from './served-process.js';

const CONNECTIONS = 32;
const admin = USERS.admin;

type Kind = 'token' | 'api' | 'web';
interface Outcome {
  at: number;
  kind: Kind;
  status: number | 'network-error';
  problem?: string;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The served OpenAPI document, which every 503 of the API and the token endpoint must match. */
let documented: OpenAPIBackend | undefined;
const OPERATION: Record<Exclude<Kind, 'web'>, string> = { api: 'get_orders_v1_orders_get', token: 'issue_token_oauth2_token_post' };

/** What the served document says is wrong with this answer's body or headers, if anything. */
function undocumented(kind: Exclude<Kind, 'web'>, res: Answer, body: unknown): string | undefined {
  if (!documented) return 'the OpenAPI document was not loaded';
  // openapi-backend accepts any body for a status the operation does not declare: require the declaration.
  if (!documented.getOperation(OPERATION[kind])?.responses?.[String(res.status)]) return `${kind} ${res.status} is not in the OpenAPI document`;
  const checks = [
    documented.validator.validateResponse(body, OPERATION[kind], res.status),
    documented.validator.validateResponseHeaders(res.headers, OPERATION[kind], { statusCode: res.status }),
  ];
  const errors = checks.flatMap((c) => c.errors ?? []);
  return errors.length ? `${kind} ${res.status} does not match the OpenAPI document: ${JSON.stringify(errors)}` : undefined;
}

/** What is wrong with an answer, or undefined when it is one the contract allows. */
function problemOf(kind: Kind, res: Answer): string | undefined {
  if (res.status === 200) return undefined;
  if (res.status !== 503) return `status ${res.status}: ${res.body.slice(0, 200)}`;
  if (!/^\d+$/.test(res.headers['retry-after'] ?? '')) return 'a 503 without Retry-After';
  if (kind === 'web') return /^text\/html/.test(res.headers['content-type'] ?? '') ? undefined : 'web 503 is not a page';
  let body: Record<string, unknown>;
  try {
    body = JSON.parse(res.body) as Record<string, unknown>;
  } catch {
    return `503 body is not JSON: ${res.body.slice(0, 100)}`;
  }
  if (kind === 'api') return Object.keys(body).join() === 'detail' && typeof body.detail === 'string' ? undocumented(kind, res, body) : `API 503 body ${res.body}`;
  const rfc = body.error === 'temporarily_unavailable' && typeof body.error_description === 'string' && Object.keys(body).length === 2;
  if (!rfc) return `token 503 body ${res.body}`;
  if (res.headers['cache-control'] !== 'no-store' || res.headers.pragma !== 'no-cache') return 'token 503 is cacheable';
  return undocumented(kind, res, body);
}

describe('PostgreSQL restarts and stops under load', { skip: !privateClusterAvailable() && 'no PostgreSQL binaries', timeout: 420_000 }, () => {
  let cluster: PrivateCluster;
  let server: ServedProcess;
  let dataDir: string;

  before(async () => {
    cluster = await PrivateCluster.start();
    dataDir = mkdtempSync(path.join(os.tmpdir(), 'certdesk-outage-'));
    const handle = await openDatabase({ databaseUrl: cluster.url, pgliteDir: null, poolSize: 2 });
    try {
      await migrate(handle);
      await loadStandardFixture(handle, new LocalDirectoryStorage(dataDir));
    } finally {
      await handle.close();
    }
    server = await ServedProcess.start({
      DATABASE_URL: cluster.url,
      DATA_DIR: dataDir,
      OBJECT_STORAGE_DIR: dataDir,
      DATABASE_POOL_SIZE: '10',
      // warn: request lines are left out, anything logged per failing request would still show.
      LOG_LEVEL: 'warn',
      MASTER_KEY: 'outage-test-master-key-0123456789abcdef',
    });
  });

  after(async () => {
    await server?.stop();
    await cluster?.destroy();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  it('keeps answering 200 or 503, logs the outage once, reports readiness, and recovers by itself', async (t) => {
    const base = server.baseUrl;
    const served = await request(base, false, { path: '/openapi.json' });
    assert.equal(served.status, 200);
    documented = new OpenAPIBackend({
      definition: JSON.parse(served.body),
      strict: true,
      validate: true,
      customizeAjv: (ajv) => {
        addFormats.default(ajv);
        return ajv;
      },
    });
    await documented.init();
    const tokenRes = await request(base, false, {
      method: 'POST',
      path: '/oauth2/token',
      headers: { authorization: basic(admin.clientId, admin.clientSecret), 'content-type': 'application/x-www-form-urlencoded' },
      body: 'grant_type=client_credentials',
    });
    assert.equal(tokenRes.status, 200, tokenRes.body);
    const token = (JSON.parse(tokenRes.body) as { access_token: string }).access_token;
    const cookie = await signInCookie(base, admin.email, admin.password);

    const load = server.agent(CONNECTIONS);
    const outcomes: Outcome[] = [];
    let running = true;
    const calls: Record<Kind, () => Promise<Answer>> = {
      token: () =>
        request(base, load, {
          method: 'POST',
          path: '/oauth2/token',
          headers: { authorization: basic(admin.clientId, admin.clientSecret), 'content-type': 'application/x-www-form-urlencoded' },
          body: 'grant_type=client_credentials',
        }),
      api: () => request(base, load, { path: '/v1/orders?project_id=All%20Projects&limit=5', headers: { authorization: `Bearer ${token}` } }),
      web: () => request(base, load, { path: '/orders', headers: { cookie } }),
    };
    const kinds: Kind[] = ['api', 'api', 'token', 'web'];
    const worker = async (n: number) => {
      for (let i = n; running; i++) {
        const kind = kinds[i % kinds.length]!;
        try {
          const res = await calls[kind]();
          outcomes.push({ at: Date.now(), kind, status: res.status, problem: problemOf(kind, res) });
        } catch (err) {
          outcomes.push({ at: Date.now(), kind, status: 'network-error', problem: (err as Error).message });
          await sleep(50);
        }
      }
    };
    const readiness: Array<{ at: number; status: number; database: string }> = [];
    const probe = server.agent(1);
    const readyz = async () => {
      const res = await request(base, probe, { path: '/readyz' });
      const body = JSON.parse(res.body) as { database: { status: string } };
      readiness.push({ at: Date.now(), status: res.status, database: body.database.status });
      return res;
    };
    const waitForReadyz = async (status: number, withinMs: number) => {
      const until = Date.now() + withinMs;
      while (Date.now() < until) {
        if ((await readyz()).status === status) return Date.now();
        await sleep(100);
      }
      assert.fail(`/readyz did not answer ${status} within ${withinMs} ms`);
    };

    const workers = Array.from({ length: CONNECTIONS }, (_, n) => worker(n));
    await sleep(1500);
    const restartAt = Date.now();
    await cluster.restart();
    await sleep(2500);
    const stopAt = Date.now();
    await cluster.stop();
    const downSeenAt = await waitForReadyz(503, 5000);
    await sleep(3000);
    assert.equal((await readyz()).status, 503, '/readyz while the database is stopped');
    const startAt = Date.now();
    await cluster.startServer();
    const startedAt = Date.now();
    const upSeenAt = await waitForReadyz(200, 15_000);
    await sleep(2000);
    running = false;
    await Promise.all(workers);

    // The process lived through it all.
    assert.ok(server.alive, `serve died:\n${server.text.slice(-20).join('\n')}`);

    const counts = new Map<string, number>();
    for (const o of outcomes) counts.set(`${o.kind} ${o.status}`, (counts.get(`${o.kind} ${o.status}`) ?? 0) + 1);
    const firstOkAfterStart = Math.min(...(['api', 'token', 'web'] as Kind[]).map((k) => outcomes.find((o) => o.kind === k && o.at > startedAt && o.status === 200)?.at ?? Infinity));
    const lastOkAfterStart = Math.max(...(['api', 'token', 'web'] as Kind[]).map((k) => outcomes.find((o) => o.kind === k && o.at > startedAt && o.status === 200)?.at ?? Infinity));
    t.diagnostic(`status counts: ${JSON.stringify(Object.fromEntries([...counts].sort()))}`);
    t.diagnostic(`restart at +0 ms, stop at +${stopAt - restartAt} ms, /readyz down seen +${downSeenAt - stopAt} ms after stop`);
    t.diagnostic(
      `after pg_ctl start returned: first 200 in ${firstOkAfterStart - startedAt} ms, every kind 200 in ${lastOkAfterStart - startedAt} ms, /readyz 200 in ${upSeenAt - startedAt} ms (pg_ctl start took ${startedAt - startAt} ms)`,
    );

    const problems = outcomes.filter((o) => o.problem);
    assert.deepEqual(problems.slice(0, 5), [], `${problems.length} answers outside the contract`);
    assert.ok(outcomes.some((o) => o.status === 503 && o.at > stopAt), 'callers saw the outage as 503s');
    assert.ok(outcomes.filter((o) => o.at < restartAt).every((o) => o.status === 200), 'all 200 before the faults');
    // Recovered by itself: every kind of call answers 200 again soon after the database is back.
    assert.ok(lastOkAfterStart - startedAt < 10_000, `service back within 10 s of the database (${lastOkAfterStart - startedAt} ms)`);
    const tail = outcomes.filter((o) => o.at > upSeenAt + 1000);
    assert.ok(tail.length > 0 && tail.every((o) => o.status === 200), 'all 200 once recovered');

    // Readiness: down while stopped, up after.
    assert.ok(readiness.some((r) => r.status === 503 && r.database === 'down' && r.at > stopAt && r.at < startAt));
    assert.equal(readiness.at(-1)?.status, 200);

    // One line when each outage starts and one when it ends (two faults), per serving process (`serve`
    // runs one worker per core, each with its own pool and monitor), and no stack traces at all.
    const perProcess = (msg: string) => {
      const counts = new Map<unknown, number>();
      for (const line of server.logged(msg)) counts.set(line.pid, (counts.get(line.pid) ?? 0) + 1);
      return counts;
    };
    const down = perProcess('database unavailable');
    const up = perProcess('database available again');
    t.diagnostic(`outage lines per process: unavailable ${JSON.stringify([...down])}, available again ${JSON.stringify([...up])}`);
    assert.ok(down.size >= 1 && [...down.values()].includes(2), `some process logged both outages: ${JSON.stringify(server.logged('database unavailable'))}`);
    for (const [pid, n] of down) {
      assert.ok(n <= 2, `process ${String(pid)} logged ${n} outage starts for two faults`);
      assert.equal(up.get(pid), n, `process ${String(pid)} logged each outage's end once`);
    }
    assert.equal([...up.keys()].filter((pid) => !down.has(pid)).length, 0, 'no end without a start');
    const stacks = server.logs.filter((l) => JSON.stringify(l).includes('"stack"'));
    assert.deepEqual(stacks.slice(0, 2), [], `${stacks.length} log lines with a stack trace`);
    t.diagnostic(`log lines at warn and above during the run: ${server.logs.length}`);
    const operatorLines = [/^certdesk serving on /, /^\d+ workers without REDIS_URL: /];
    assert.deepEqual(server.text.filter((l) => !operatorLines.some((re) => re.test(l))), [], 'nothing but the banner and start-up notices outside the JSON log');

    // The outage shows in /metrics: connection-level errors and 503s by route pattern.
    const metrics = await request(base, false, { path: '/metrics' });
    assert.equal(metrics.status, 200);
    const unavailable = Number(/certdesk_db_errors_total\{kind="unavailable"\} (\d+)/.exec(metrics.body)?.[1] ?? 0);
    assert.ok(unavailable > 0, 'database errors counted');
    assert.match(metrics.body, /certdesk_http_requests_total\{method="GET",route="\/v1\/orders",status="503"\} [1-9]/);
    assert.match(metrics.body, /certdesk_oauth_tokens_refused_total\{error="temporarily_unavailable"\} [1-9]/);
    assert.match(metrics.body, /certdesk_db_up 1/);
    // Both pools are reported: the listing's reads have their own (src/storage/database.ts splitPoolSize).
    assert.match(metrics.body, /certdesk_db_pool_connections\{pool="main",state="total"\} \d+/);
    assert.match(metrics.body, /certdesk_db_pool_connections\{pool="hot_reads",state="total"\} \d+/);
  });
});
