/**
 * Order creation benchmark (`npm run bench:intake`): not a test. Prints every goal met or not.
 *
 * On PostgreSQL (a throw-away database next to BENCH_DATABASE_URL, default
 * postgres://postgres@127.0.0.1:5432/postgres, dropped at the end) it creates an organization, a user and an
 * API client with the read and write scopes, starts the real server (`certdesk serve` from dist/) on
 * 127.0.0.1 as a child process, and through its API:
 *   1. announces uploads (POST /v1/uploads) and PUTs a real 600×600 noise PNG (~1.06 MB, sharp; noise so it
 *      does not compress) to each presigned URL, before anything is timed;
 *   2. drives POST /v1/orders (JSON `{"upload_id","project_id":null,"order_title"}`, a distinct upload per
 *      request) with autocannon at 32 connections until every upload is used: a warm-up batch first
 *      (not reported), then the measured batch.
 * Goals: at least 500 orders/s accepted (201) and p99 at most 100 ms. Also reported: the server's CPU time
 * per order (user + system from /proc, the figure other load on the machine barely moves), its RSS, and
 * the CPU time PostgreSQL's backends of the benchmark database spent per order.
 *
 * The server runs with WORKER_CONCURRENCY=0 (BENCH_WORKER_CONCURRENCY to change): analysis jobs are queued
 * but not run, so the figure is order creation alone, not creation plus the analysis it queues (which
 * `certdesk worker` processes run; see "## Analysis").
 *
 * BENCH_ORDERS (default 4,000) measured orders, BENCH_WARMUP (default 400), BENCH_WORKERS (default 1: `serve
 * --workers 1`, one process), BENCH_SERVER_NODE_ARGS (node flags for the server, e.g. --cpu-prof).
 * Writes docs/benchmarks.md under "## Order creation". Needs ~1.1 MB of disk per upload (removed at the end).
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import sharp from 'sharp';
import { sql } from 'kysely';
import { SCOPES } from '../src/contract/schemas.js';
import { createApiClient } from '../src/domain/api-clients/index.js';
import { openTestPostgres } from '../test/helpers/database.js';
import { writeBenchmarkSection } from './benchmarks-doc.js';
import { cpuMsOf, memoryOf, postgresBackends, processTree, servingUrl, stopChild } from './server-process.js';

/** autocannon's options this script uses beyond bench/autocannon.d.ts. */
interface AutocannonRequest {
  method?: string;
  body?: string;
}
type IntakeOptions = Parameters<typeof autocannon>[0] & {
  /** Stop after this many requests (instead of after `duration`). */
  amount: number;
  requests: Array<AutocannonRequest & { setupRequest: (request: AutocannonRequest) => AutocannonRequest }>;
};
const runAutocannon = autocannon as unknown as (options: IntakeOptions) => ReturnType<typeof autocannon>;

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const ADMIN_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const CONNECTIONS = 32;
const ORDERS = Number(process.env.BENCH_ORDERS ?? 4000);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 400);
const WORKERS = Number(process.env.BENCH_WORKERS ?? 1);
const WORKER_CONCURRENCY = process.env.BENCH_WORKER_CONCURRENCY ?? '0';
/** Distinct PNGs; every upload gets one of them (each upload is an object of its own). */
const DISTINCT_PNGS = 8;
const UPLOAD_PARALLELISM = 8;
const GOAL_RATE = 500;
const GOAL_P99_MS = 100;
const INITIAL_LOAD = os.loadavg();

function log(message: string): void {
  process.stderr.write(`[bench:intake] ${message}\n`);
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

interface Server {
  child: ChildProcess;
  baseUrl: string;
}

async function startServer(databaseUrl: string, dataDir: string): Promise<Server> {
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  // BENCH_SERVER_NODE_ARGS: extra node flags for the server, e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof".
  const nodeArgs = (process.env.BENCH_SERVER_NODE_ARGS ?? '').split(' ').filter(Boolean);
  const args = [...nodeArgs, path.join(ROOT, 'bin/certdesk'), 'serve', '--workers', String(WORKERS)];
  const child = spawn(process.execPath, args, {
    cwd: ROOT,
    env: {
      ...process.env,
      DATABASE_URL: databaseUrl,
      HOST: '127.0.0.1',
      PORT: String(port),
      PUBLIC_BASE_URL: baseUrl,
      LOG_LEVEL: 'warn',
      DATA_DIR: dataDir,
      WORKER_CONCURRENCY,
      CERTDESK_ENV: process.env.CERTDESK_ENV ?? 'test',
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  await servingUrl(child);
  return { child, baseUrl };
}

async function token(baseUrl: string, clientId: string, clientSecret: string): Promise<string> {
  const res = await fetch(`${baseUrl}/oauth2/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'client_credentials', client_id: clientId, client_secret: clientSecret, scope: `${SCOPES.read} ${SCOPES.write}` }),
  });
  if (!res.ok) throw new Error(`token request failed: ${res.status} ${await res.text()}`);
  return ((await res.json()) as { access_token: string }).access_token;
}

/** Announces one upload and PUTs its bytes to the presigned URL, as a client does. @returns the upload id */
async function upload(baseUrl: string, bearer: string, png: Buffer, n: number): Promise<string> {
  const res = await fetch(`${baseUrl}/v1/uploads`, {
    method: 'POST',
    headers: { authorization: `Bearer ${bearer}`, 'content-type': 'application/json' },
    body: JSON.stringify({ file_name: `bench-${n}.png`, content_type: 'image/png', size: png.length }),
  });
  if (res.status !== 201) throw new Error(`POST /v1/uploads: ${res.status} ${await res.text()}`);
  const ticket = (await res.json()) as { upload_id: string; upload_url: string; upload_headers: Record<string, string> };
  const put = await fetch(ticket.upload_url, { method: 'PUT', headers: ticket.upload_headers, body: new Uint8Array(png) as unknown as RequestInit['body'] });
  if (!put.ok) throw new Error(`PUT ${ticket.upload_url}: ${put.status} ${await put.text()}`);
  return ticket.upload_id;
}

async function uploadMany(baseUrl: string, bearer: string, pngs: Buffer[], count: number): Promise<string[]> {
  const ids: string[] = new Array<string>(count);
  let next = 0;
  const started = Date.now();
  await Promise.all(
    Array.from({ length: UPLOAD_PARALLELISM }, async () => {
      while (next < count) {
        const n = next++;
        ids[n] = await upload(baseUrl, bearer, pngs[n % pngs.length]!, n);
        if ((n + 1) % 1000 === 0) log(`${n + 1} / ${count} uploads (${((Date.now() - started) / 1000).toFixed(0)} s)`);
      }
    }),
  );
  return ids;
}

interface Measurement {
  orders: number;
  created: number;
  other: number;
  errors: number;
  seconds: number;
  rate: number;
  p50: number;
  p99: number;
  max: number;
  cpuMsPerOrder: number;
  postgresCpuMsPerOrder: number;
  rssMb: number;
  hwmMb: number;
}

async function createOrders(server: Server, bearer: string, uploadIds: string[], database: string): Promise<Measurement> {
  let next = 0;
  const body = () => JSON.stringify({ upload_id: uploadIds[next++], project_id: null, order_title: `bench order ${next}` });
  const pids = processTree(server.child.pid!);
  const backends = postgresBackends(database);
  const cpu = () => pids.reduce((s, p) => s + cpuMsOf(p), 0);
  const pgCpu = () => backends.reduce((s, p) => s + cpuMsOf(p), 0);
  const cpu0 = cpu();
  const pg0 = pgCpu();
  const t0 = performance.now();
  const result = await runAutocannon({
    url: `${server.baseUrl}/v1/orders`,
    connections: CONNECTIONS,
    amount: uploadIds.length,
    headers: { authorization: `Bearer ${bearer}`, 'content-type': 'application/json' },
    requests: [{ method: 'POST', setupRequest: (request) => ({ ...request, body: body() }) }],
  });
  const seconds = (performance.now() - t0) / 1000;
  const created = result['2xx'];
  const mems = pids.map(memoryOf);
  return {
    orders: uploadIds.length,
    created,
    other: result.non2xx,
    errors: result.errors + result.timeouts,
    seconds,
    rate: created / seconds,
    p50: result.latency.p50,
    p99: result.latency.p99,
    max: result.latency.max,
    cpuMsPerOrder: (cpu() - cpu0) / Math.max(1, result.requests.total),
    postgresCpuMsPerOrder: backends.length ? (pgCpu() - pg0) / Math.max(1, result.requests.total) : NaN,
    rssMb: Math.max(...mems.map((m) => m.rss)),
    hwmMb: Math.max(...mems.map((m) => m.hwm)),
  };
}

async function main(): Promise<void> {
  log('building dist/ (serve runs the compiled program)');
  const build = spawnSync('npm', ['run', 'build'], { cwd: ROOT, encoding: 'utf8' });
  if (build.status !== 0) log(`npm run build reported errors; continuing with the emitted dist/:\n${build.stdout.slice(-2000)}`);
  const handle = await openTestPostgres(ADMIN_URL);
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'certdesk-bench-intake-'));
  let server: Server | null = null;
  try {
    const databaseUrl = await databaseUrlOf(handle);
    const database = new URL(databaseUrl).pathname.slice(1);
    const organizationId = randomUUID();
    const userId = randomUUID();
    const email = `bench-${userId}@bench.test`;
    await handle.db.insertInto('organizations').values({ id: organizationId, name: 'Intake bench' }).execute();
    await handle.db.insertInto('users').values({ id: userId, organization_id: organizationId, email, email_key: email, username: 'bench' }).execute();
    const { client, clientSecret } = await createApiClient(handle.db, { organizationId, userId, name: 'intake bench', scopes: [SCOPES.read, SCOPES.write] });

    log(`${DISTINCT_PNGS} distinct 600×600 noise PNGs`);
    const pngs = await Promise.all(
      Array.from({ length: DISTINCT_PNGS }, () =>
        sharp({ create: { width: 600, height: 600, channels: 3, background: '#000', noise: { type: 'gaussian', mean: 128, sigma: 60 } } }).png().toBuffer(),
      ),
    );
    const averageMb = pngs.reduce((s, p) => s + p.length, 0) / pngs.length / 1e6;

    server = await startServer(databaseUrl, dataDir);
    const stop = () => void (server && stopChild(server.child, 15_000));
    process.once('SIGINT', stop);
    log(`server ${server.baseUrl} (pid ${server.child.pid}, WORKER_CONCURRENCY=${WORKER_CONCURRENCY}${WORKERS > 1 ? `, --workers ${WORKERS}` : ''})`);
    const bearer = await token(server.baseUrl, client.clientId, clientSecret);

    log(`${WARMUP + ORDERS} uploads (POST /v1/uploads + PUT of ${averageMb.toFixed(2)} MB each), ${UPLOAD_PARALLELISM} at a time`);
    const ids = await uploadMany(server.baseUrl, bearer, pngs, WARMUP + ORDERS);
    await sql`VACUUM ANALYZE uploads`.execute(handle.db);

    log(`warm-up: ${WARMUP} orders`);
    const warm = await createOrders(server, bearer, ids.slice(0, WARMUP), database);
    if (warm.created !== WARMUP) throw new Error(`warm-up: ${warm.created} of ${WARMUP} orders created (${warm.other} other answers, ${warm.errors} errors)`);
    log(`measured: ${ORDERS} orders, ${CONNECTIONS} connections`);
    const m = await createOrders(server, bearer, ids.slice(WARMUP), database);
    log(`${m.created} created in ${m.seconds.toFixed(2)} s: ${m.rate.toFixed(0)} orders/s, p50 ${m.p50} ms, p99 ${m.p99} ms, server CPU ${m.cpuMsPerOrder.toFixed(2)} ms/order, PostgreSQL CPU ${m.postgresCpuMsPerOrder.toFixed(2)} ms/order, RSS ${m.rssMb.toFixed(0)} MB`);

    // What the 201s claim, checked in the database: one order, one creation event and one queued analysis job each.
    const counts = await sql<{ orders: number; events: number; jobs: number; used: number }>`
      SELECT (SELECT count(*)::int FROM orders WHERE organization_id = ${organizationId}::uuid) AS orders,
             (SELECT count(*)::int FROM order_events WHERE organization_id = ${organizationId}::uuid AND from_state IS NULL) AS events,
             (SELECT count(*)::int FROM jobs WHERE kind = 'analyze_order') AS jobs,
             (SELECT count(*)::int FROM uploads WHERE used_at IS NOT NULL) AS used`.execute(handle.db);
    const c = counts.rows[0]!;
    const expected = WARMUP + m.created;
    const consistent = c.orders === expected && c.events === expected && c.jobs === expected && c.used === expected;
    await stopChild(server.child, 15_000);
    server = null;

    const load = os.loadavg();
    const f = (n: number, d = 0) => (Number.isFinite(n) ? n.toFixed(d) : '—');
    const goal = (ok: boolean, text: string) => `| ${text} | ${ok ? 'met' : '**not met**'} |`;
    const cores = os.cpus().length;
    const table = [
      '| Measure | Value |',
      '|---|---|',
      `| Orders created (201) / requests | ${m.created} / ${m.orders} (${m.other} other answers, ${m.errors} errors) |`,
      `| Wall time of the measured batch | ${f(m.seconds, 2)} s → **${f(m.rate)} orders/s** |`,
      `| Latency p50 / p99 / max | ${f(m.p50)} / **${f(m.p99)}** / ${f(m.max)} ms |`,
      `| Server CPU per order (user + system${WORKERS > 1 ? ', primary + workers' : ''}) | **${f(m.cpuMsPerOrder, 2)} ms** |`,
      `| PostgreSQL CPU per order (the benchmark database's backends) | ${f(m.postgresCpuMsPerOrder, 2)} ms |`,
      `| Ceiling from CPU alone: ${cores} cores ÷ (server + PostgreSQL CPU per order), autocannon and everything else left out | ${f((1000 * cores) / (m.cpuMsPerOrder + m.postgresCpuMsPerOrder))} orders/s |`,
      `| Server RSS at the end (peak) | ${f(m.rssMb)} MB (${f(m.hwmMb)} MB) |`,
      `| Database check after the run | ${c.orders} orders, ${c.events} creation events, ${c.jobs} queued analysis jobs, ${c.used} used uploads: ${consistent ? 'one of each per 201' : '**mismatch**'} |`,
    ].join('\n');
    const goals = [
      '| Goal | Result |',
      '|---|---|',
      goal(m.rate >= GOAL_RATE && m.errors === 0 && m.other === 0, `≥ ${GOAL_RATE} orders/s accepted (201) at ${CONNECTIONS} connections (${f(m.rate)} orders/s)`),
      goal(m.p99 <= GOAL_P99_MS, `p99 ≤ ${GOAL_P99_MS} ms (${f(m.p99)} ms)`),
      goal(consistent, 'every 201 is one stored order, one creation event, one queued analysis job'),
    ].join('\n');
    const loadText = (l: number[]) => l.map((x) => x.toFixed(2)).join(' / ');
    const section =
      `## Order creation\n\n` +
      `\`npm run bench:intake\` (bench/intake.ts), ${new Date().toISOString()}: ${cores} CPUs (${os.cpus()[0]?.model.trim()}), ${(os.totalmem() / 2 ** 30).toFixed(0)} GB, Node ${process.version}, ` +
      `PostgreSQL at ${new URL(ADMIN_URL).host} (a throw-away database); server, PostgreSQL and autocannon share the machine.\n` +
      `\`certdesk serve --workers ${WORKERS}\`${WORKERS > 1 ? '' : ' (one process)'} from dist/ with \`WORKER_CONCURRENCY=${WORKER_CONCURRENCY}\`` +
      `${WORKER_CONCURRENCY === '0' ? ' (analysis jobs are queued but not run in the server, so the figure is order creation alone; analysis runs in `certdesk worker` processes, see "Analysis")' : ''}. ` +
      `Before the timed part, ${WARMUP + ORDERS} uploads were announced (POST /v1/uploads) and their bytes PUT to the presigned URLs ` +
      `(600×600 noise PNGs made with sharp, ${averageMb.toFixed(2)} MB average, ${DISTINCT_PNGS} distinct). Then POST /v1/orders with JSON ` +
      `\`{"upload_id","project_id":null,"order_title"}\`, a distinct upload per request, autocannon at ${CONNECTIONS} connections: ${WARMUP} orders of warm-up (not reported), ` +
      `then ${ORDERS} measured. CPU figures come from /proc (user + system). ` +
      `Load average (1 / 5 / 15 min) at the start ${loadText(INITIAL_LOAD)}, at the end ${loadText(load)}, on ${cores} cores: ` +
      'other work on the machine lowers orders/s and raises latency; CPU per order moves much less.\n\n' +
      `${table}\n\n${goals}\n`;
    process.stdout.write(`\n${section}`);
    writeBenchmarkSection('## Order creation', section);
    log('wrote docs/benchmarks.md');
  } finally {
    if (server) await stopChild(server.child, 15_000);
    await handle.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** The URL of the throw-away database openTestPostgres made (the handle's pool knows it). */
async function databaseUrlOf(handle: Awaited<ReturnType<typeof openTestPostgres>>): Promise<string> {
  const r = await sql<{ name: string }>`SELECT current_database() AS name`.execute(handle.db);
  const url = new URL(ADMIN_URL);
  url.pathname = `/${r.rows[0]!.name}`;
  return url.toString();
}

main().catch((err: unknown) => {
  process.stderr.write(`[bench:intake] failed: ${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
