/**
 * The issue-12 benchmark (`npm run bench`): not a test. Prints every goal met or not, from one run.
 *
 * On PostgreSQL (DATABASE_URL, default postgres://postgres@127.0.0.1:5432/certdesk_bench, created if missing)
 * it loads --orders (default 1,000,000) orders into one organization and 1,000 into another (generated in
 * SQL with generate_series; the triggers keep the counters exact), starts `certdesk serve --workers N` on
 * 127.0.0.1 as a child process, and measures with wrk (bench/wrk.ts; 32 connections, --duration s each):
 *   (a) limit=200, first page          (b) limit=200 at page 2,000 (a replayed token)
 *   (c) limit=200&preview=true         (d) limit=1 at --orders orders vs at 1,000 orders
 * and, in the same rounds, the bare keyset SELECT of (a)'s 201 stored rows with pgbench (32 clients) and
 * (a), (c), (d) against the code before this work (bench/baseline-build.ts: built from git, served next to
 * today's). Each round measures the figures a goal compares one right after the other: pgbench of (a), (a),
 * (b); pgbench of (c), (c), (c) before; (d), (d) at 1,000 orders, (d) before; then (a) before. Then the import of --import-orders orders
 * (bench/import.ts). Results go to stdout and to docs/benchmarks.md
 * ("## Orders listing", "## Import"). Everything listens on 127.0.0.1 and stops by itself.
 *
 * Flags: --orders N (a smaller count has a database of its own, certdesk_bench_N), --duration S,
 * --rounds R, --workers W (default: CPUs), --import-orders N (0: no import), --baseline REF (default: the
 * commit before this work; `none` skips the comparison), --prepare (load data, exit).
 * Quick run: `npm run bench -- --orders 20000 --duration 3 --rounds 1 --import-orders 20000`.
 * Time: about rounds × (6 × (duration + 2) s) + the import; loading 1,000,000 orders once takes minutes.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync, readdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { sql } from 'kysely';
import pg from 'pg';
import { loadSeed } from '../src/domain/seed/seed.js';
import { openDatabase, type DatabaseHandle } from '../src/storage/database.js';
import { migrate } from '../src/storage/migrate.js';
import { LocalDirectoryStorage } from '../src/storage/object-storage/index.js';
import { writeBenchmarkSection } from './benchmarks-doc.js';
import { insertOrders, secretOf, seedDocument, type BenchOrganization } from './bench-organization.js';
import { cpuMsOf, memoryOf, postgresBackendsOf, processTree, servingUrl, stopChild } from './server-process.js';
import { runImportBenchmark, type ImportFigures } from './import.js';
import { BASELINE_COMMIT, buildBaseline } from './baseline-build.js';
import { runWrk } from './wrk.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const { values: FLAGS } = parseArgs({
  options: {
    /** Orders of the big organization (default 1,000,000); smaller counts make quick runs. */
    orders: { type: 'string' },
    /** Seconds per scenario (default 10) and rounds of all scenarios (default 3). */
    duration: { type: 'string' },
    rounds: { type: 'string' },
    /** Server worker processes (default: the number of CPUs). */
    workers: { type: 'string' },
    /** Orders imported by the import part (default: --orders); 0 skips the import part. */
    'import-orders': { type: 'string' },
    /** The code "before this work" that (c) and (d) must not be slower than: a commit, or `none`. */
    baseline: { type: 'string', default: BASELINE_COMMIT },
    /** Only create and load the database, then exit (so the timed run does not pay for it). */
    prepare: { type: 'boolean', default: false },
  },
});
const count = (v: string | undefined, fallback: number) => (v === undefined ? fallback : Math.max(0, Math.floor(Number(v.replace(/[_,]/g, '')))));
const BIG_ORDERS = count(FLAGS.orders, 1_000_000);
// Each order count has a database of its own, so a quick run never reloads the full one.
const DATABASE_URL = process.env.DATABASE_URL ?? `postgres://postgres@127.0.0.1:5432/certdesk_bench${BIG_ORDERS === 1_000_000 ? '' : `_${BIG_ORDERS}`}`;
const CONNECTIONS = 32;
/** The load generator's script (bench/wrk.ts): the same request over and over, one JSON line when done. */
const WRK_SCRIPT = path.join(ROOT, 'bench/wrk-orders.lua');
/** Seconds of load before each measured run: the server's caches and young generation settle. */
const WARM_UP_SECONDS = 3;
const DURATION = count(FLAGS.duration ?? process.env.BENCH_DURATION, 10);
const ROUNDS = count(FLAGS.rounds ?? process.env.BENCH_ROUNDS, 3);
const WORKERS = count(FLAGS.workers, os.availableParallelism());
const IMPORT_ORDERS = count(FLAGS['import-orders'], BIG_ORDERS);
const BIG: BenchOrganization = { id: 'be000000-0000-4000-8000-000000000001', name: 'Bench Big', orders: BIG_ORDERS, slug: 'big' };
const SMALL: BenchOrganization = { id: 'be000000-0000-4000-8000-000000000002', name: 'Bench Small', orders: 1_000, slug: 'small' };
/** Taken before anything runs: how busy the machine already was. */
const INITIAL_LOAD = os.loadavg();
/** The replayed deep page of (b): page 2,000 of 1,000,000 orders, proportionally less for quick runs. */
const DEEP_PAGE = Math.max(2, Math.min(2000, Math.floor(BIG_ORDERS / 400)));
const N = (n: number) => n.toLocaleString('en-US');
/**
 * (c) and (d) "do not get slower": today's req/s at 32 connections against the code before this work, measured
 * right after it in the same round (the medians of the rounds compared); 5 % is left for the noise between
 * back-to-back runs of one build.
 */
const NOT_SLOWER_SHARE = 0.95;

function log(message: string): void {
  process.stderr.write(`[bench] ${message}\n`);
}

async function ensureDatabase(url: string): Promise<void> {
  const target = new URL(url);
  const name = decodeURIComponent(target.pathname.slice(1));
  if (!/^[A-Za-z0-9_]+$/.test(name)) throw new Error(`unexpected database name ${name}`);
  const admin = new URL(url);
  admin.pathname = '/postgres';
  const client = new pg.Client({ connectionString: admin.toString() });
  await client.connect();
  try {
    const exists = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (exists.rowCount === 0) {
      log(`creating database ${name}`);
      await client.query(`CREATE DATABASE ${name}`);
    }
  } finally {
    await client.end();
  }
}

async function countOrders(handle: DatabaseHandle, organizationId: string): Promise<number> {
  const r = await sql<{ n: number }>`SELECT coalesce(sum(order_count), 0)::bigint AS n FROM order_counters WHERE organization_id = ${organizationId}::uuid`.execute(handle.db);
  return r.rows[0]!.n;
}

/** Whether the stored orders have today's shape (an earlier version stored preview keys outside the organization's prefix). */
async function currentShape(handle: DatabaseHandle, org: BenchOrganization): Promise<boolean> {
  const r = await sql<{ key: string | null }>`SELECT asset_preview_key AS key FROM orders WHERE order_id = ${`${org.slug}-0000000`}`.execute(handle.db);
  return r.rows[0]?.key === `orgs/${org.id}/orders/${org.slug}-0000000/preview.jpg`;
}

async function ensureData(handle: DatabaseHandle): Promise<void> {
  const storage = new LocalDirectoryStorage(mkdtempSync(path.join(os.tmpdir(), 'certdesk-bench-objects-')));
  await loadSeed(handle.db, storage, seedDocument([BIG, SMALL]));
  for (const org of [BIG, SMALL]) {
    if ((await countOrders(handle, org.id)) === org.orders && (await currentShape(handle, org))) {
      log(`${org.name}: ${org.orders} orders already loaded`);
      continue;
    }
    await sql`DELETE FROM orders WHERE organization_id = ${org.id}::uuid`.execute(handle.db);
    const chunk = 100_000;
    const started = Date.now();
    for (let from = 0; from < org.orders; from += chunk) {
      await insertOrders(handle, org, from, Math.min(org.orders, from + chunk));
      log(`${org.name}: ${Math.min(org.orders, from + chunk)} / ${org.orders} orders (${((Date.now() - started) / 1000).toFixed(0)} s)`);
    }
    if ((await countOrders(handle, org.id)) !== org.orders) throw new Error(`${org.name}: counters disagree with the load`);
  }
  log('VACUUM ANALYZE orders');
  await sql`VACUUM ANALYZE orders`.execute(handle.db);
  await sql`VACUUM ANALYZE order_counters`.execute(handle.db);
}

interface Server {
  child: ChildProcess;
  baseUrl: string;
  /** Its pools' application_name: which backends are its own. */
  applicationName: string;
}

/** `certdesk serve` of the program at `root`: today's with --workers, the baseline's as it was (one process). */
async function startServer(root = ROOT, workers: number | null = WORKERS, applicationName = 'certdesk-bench'): Promise<Server> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'certdesk-bench-serve-'));
  const child = spawn(process.execPath, [path.join(root, 'bin/certdesk'), 'serve', ...(workers === null ? [] : ['--workers', String(workers)])], {
    cwd: root,
    env: { ...process.env, PGAPPNAME: applicationName, DATABASE_URL, HOST: '127.0.0.1', PORT: '0', LOG_LEVEL: 'warn', DATA_DIR: dataDir, CERTDESK_ENV: process.env.CERTDESK_ENV ?? 'test' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const baseUrl = await servingUrl(child);
  return { child, baseUrl, applicationName };
}

async function tokenFor(baseUrl: string, slug: string): Promise<string> {
  const res = await fetch(`${baseUrl}/oauth2/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'client_credentials', client_id: `bench-${slug}`, client_secret: secretOf(slug) }),
  });
  if (!res.ok) throw new Error(`token request failed: ${res.status} ${await res.text()}`);
  return ((await res.json()) as { access_token: string }).access_token;
}

interface Page {
  orders: unknown[] | null;
  order_previews: unknown[] | null;
  next_page_token: string | null;
}

async function getPage(url: string, token: string): Promise<Page> {
  const res = await fetch(url, { headers: { authorization: `Bearer ${token}` } });
  if (res.status !== 200) throw new Error(`GET ${url}: ${res.status} ${await res.text()}`);
  return (await res.json()) as Page;
}

/** The token of page `page` (1-based) at 200 per page; walked with large pages first (limit may change between pages). */
async function tokenOfPage(baseUrl: string, token: string, page: number): Promise<string> {
  let skip = (page - 1) * 200;
  let pageToken: string | null = null;
  while (skip > 0) {
    const limit = skip >= 1000 ? 1000 : 200;
    const url = `${baseUrl}/v1/orders?project_id=All%20Projects&limit=${limit}${pageToken ? `&page_token=${pageToken}` : ''}`;
    const body = await getPage(url, token);
    if (!body.next_page_token) throw new Error('ran out of pages');
    pageToken = body.next_page_token;
    skip -= limit;
  }
  return pageToken!;
}

interface Measurement {
  name: string;
  requestsPerSecond: number;
  p50: number;
  p99: number;
  rssMb: number;
  hwmMb: number;
  errors: number;
  /** Server CPU time per request: unlike req/s, barely moved by other work on the machine. */
  cpuMsPerRequest: number;
  /** CPU time of the benchmark database's PostgreSQL backends per request (the server's pool). */
  pgCpuMsPerRequest: number;
  /** Size of one response body, in KB. */
  bodyKb: number;
}

async function measure(name: string, url: string, token: string, server: Server, expectItems: number): Promise<Measurement> {
  const probeRes = await fetch(url, { headers: { authorization: `Bearer ${token}` } });
  const probeText = await probeRes.text();
  if (probeRes.status !== 200) throw new Error(`${name}: ${probeRes.status} ${probeText}`);
  const probe = JSON.parse(probeText) as Page;
  const bodyKb = Buffer.byteLength(probeText) / 1024;
  const items = (probe.orders ?? probe.order_previews ?? []).length;
  if (items !== expectItems) throw new Error(`${name}: expected ${expectItems} items, got ${items}`);
  const load = (seconds: number) =>
    runWrk({ url, connections: CONNECTIONS, seconds, script: WRK_SCRIPT, headers: [`Authorization: Bearer ${token}`] });
  await load(WARM_UP_SECONDS); // warm-up, not reported
  // The server is the primary and its workers: CPU is their sum, memory the largest single process.
  const pids = processTree(server.child.pid!);
  const cpuOf = () => pids.reduce((sum, pid) => sum + cpuMsOf(pid), 0);
  // The backends of the server's pools, open after the warm-up (pools open connections on demand).
  const backends = await postgresBackendsOf(DATABASE_URL, server.applicationName);
  const pgCpuOf = () => backends.reduce((sum, pid) => sum + cpuMsOf(pid), 0);
  const cpuBefore = cpuOf();
  const pgCpuBefore = pgCpuOf();
  const r = await load(DURATION);
  const total = Math.max(1, r.requests);
  const cpuMsPerRequest = (cpuOf() - cpuBefore) / total;
  const pgCpuMsPerRequest = backends.length ? (pgCpuOf() - pgCpuBefore) / total : NaN;
  const mems = pids.map(memoryOf);
  const mem = { rss: Math.max(...mems.map((m) => m.rss)), hwm: Math.max(...mems.map((m) => m.hwm)) };
  const m = {
    name,
    requestsPerSecond: r.requests / (r.duration_us / 1e6),
    p50: r.p50_us / 1000,
    p99: r.p99_us / 1000,
    rssMb: mem.rss,
    hwmMb: mem.hwm,
    errors: r.errors,
    cpuMsPerRequest,
    pgCpuMsPerRequest,
    bodyKb,
  };
  log(`${name}: ${m.requestsPerSecond.toFixed(0)} req/s, p50 ${m.p50} ms, p99 ${m.p99} ms, RSS ${m.rssMb.toFixed(0)} MB (peak ${m.hwmMb.toFixed(0)} MB), errors ${m.errors}, server CPU ${m.cpuMsPerRequest.toFixed(2)} ms/request, PostgreSQL CPU ${m.pgCpuMsPerRequest.toFixed(2)} ms/request`);
  return m;
}

function pgbench(organizationId: string, script = 'bench/pgbench-keyset.sql', name = 'pgbench: bare keyset SELECT of (a)'): Measurement {
  const logDir = mkdtempSync(path.join(os.tmpdir(), 'certdesk-pgbench-'));
  const args = ['-n', '-M', 'extended', '-c', String(CONNECTIONS), '-j', '2', '-T', String(DURATION), '-D', `org=${organizationId}`, '-f', path.join(ROOT, script), '-l', '--log-prefix', path.join(logDir, 'tx'), DATABASE_URL];
  const run = spawnSync('/usr/bin/pgbench', args, { encoding: 'utf8' });
  if (run.status !== 0) throw new Error(`pgbench failed: ${run.stderr}`);
  const tps = Number(/tps = ([\d.]+) \(without initial connection time\)/.exec(run.stdout)?.[1] ?? NaN);
  if (!Number.isFinite(tps)) log(`pgbench printed no rate:\n${run.stdout}\n${run.stderr}`);
  const latencies: number[] = [];
  for (const file of readdirSync(logDir)) {
    for (const line of readFileSync(path.join(logDir, file), 'utf8').split('\n')) {
      const us = Number(line.split(' ')[2]);
      if (line && Number.isFinite(us)) latencies.push(us / 1000);
    }
  }
  rmSync(logDir, { recursive: true, force: true });
  latencies.sort((a, b) => a - b);
  const pct = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))] ?? NaN;
  const m = { name, requestsPerSecond: tps, p50: pct(50), p99: pct(99), rssMb: NaN, hwmMb: NaN, errors: 0, cpuMsPerRequest: NaN, pgCpuMsPerRequest: NaN, bodyKb: NaN };
  log(`${m.name}: ${tps.toFixed(0)} tps, p50 ${m.p50.toFixed(2)} ms, p99 ${m.p99.toFixed(2)} ms`);
  return m;
}

/** Per-field median over rounds (peak memory: the maximum). */
function medianOf(runs: Measurement[]): Measurement {
  const median = (xs: number[]) => {
    const sorted = xs.filter(Number.isFinite).sort((x, y) => x - y);
    return sorted.length === 0 ? NaN : sorted[Math.floor((sorted.length - 1) / 2)]!;
  };
  return {
    name: runs[0]!.name,
    requestsPerSecond: median(runs.map((r) => r.requestsPerSecond)),
    p50: median(runs.map((r) => r.p50)),
    p99: median(runs.map((r) => r.p99)),
    rssMb: median(runs.map((r) => r.rssMb)),
    hwmMb: Math.max(...runs.map((r) => r.hwmMb)),
    errors: runs.reduce((n, r) => n + r.errors, 0),
    cpuMsPerRequest: median(runs.map((r) => r.cpuMsPerRequest)),
    pgCpuMsPerRequest: median(runs.map((r) => r.pgCpuMsPerRequest)),
    bodyKb: median(runs.map((r) => r.bodyKb)),
  };
}

function report(results: Record<string, Measurement>, imported: ImportFigures | null, baselineCommit: string | null): string {
  const f = (n: number, d = 0) => (Number.isFinite(n) ? n.toFixed(d) : '—');
  const rows = Object.values(results).map(
    (m) =>
      `| ${m.name} | ${f(m.requestsPerSecond)} | ${f(m.p50, 1)} | ${f(m.p99, 1)} | ${Number.isFinite(m.rssMb) ? `${f(m.rssMb)} (peak ${f(m.hwmMb)})` : '—'} | ${f(m.cpuMsPerRequest, 2)} | ${f(m.pgCpuMsPerRequest, 2)} |`,
  );
  const { a, b, c, d1, d2, pgb, pgc } = results as Record<'a' | 'b' | 'c' | 'd1' | 'd2' | 'pgb' | 'pgc', Measurement>;
  const before = results as Partial<Record<'a0' | 'c0' | 'd10', Measurement>>;
  // Today's server only: the memory of the code before this work is not this work's goal.
  const peak = Math.max(...[a, b, c, d1, d2].map((m) => (Number.isFinite(m.hwmMb) ? m.hwmMb : 0)));
  const goal = (ok: boolean, text: string) => `| ${text} | ${ok ? 'met' : '**not met**'} |`;
  const within = (x: number, ref: number, pct: number) => Math.abs(x - ref) <= (ref * pct) / 100;
  const ratio = a.requestsPerSecond / pgb.requestsPerSecond;
  const notSlower = (m: Measurement, then: Measurement | undefined, label: string) =>
    then
      ? goal(
          m.requestsPerSecond >= then.requestsPerSecond * NOT_SLOWER_SHARE,
          `${label} not slower than before this work, same run: ${f(m.requestsPerSecond)} req/s vs ${f(then.requestsPerSecond)} ` +
            `(${f((100 * m.requestsPerSecond) / then.requestsPerSecond)} %, goal ≥ ${f(100 * NOT_SLOWER_SHARE)} %); p99 ${f(m.p99)} vs ${f(then.p99)} ms; ` +
            `server CPU per request ${f(m.cpuMsPerRequest, 2)} vs ${f(then.cpuMsPerRequest, 2)} ms`,
        )
      : `| ${label} not slower than before this work | not measured in this run (--baseline none) |`;
  const importGoals = imported
    ? [
        goal(
          imported.ordersPerSecond >= 0.8 * imported.copyRowsPerSecond,
          `Import of ${N(imported.orders)} orders ≥ 0.8 × the database's own COPY of the same rows in this run (${N(Math.round(imported.ordersPerSecond))} against ${N(Math.round(imported.copyRowsPerSecond))} rows/s: ${f(imported.ordersPerSecond / imported.copyRowsPerSecond, 2)} ×)`,
        ),
        goal(imported.peakRssMb <= 300, `Import peak RSS ≤ 300 MB (${f(imported.peakRssMb)} MB)`),
        goal(imported.counterDrift === 0, `Import: every row stored, order_counters exact (drift ${imported.counterDrift})`),
      ]
    : ['| Import | not measured in this run (--import-orders 0) |'];
  return [
    '## Orders listing',
    '',
    `Run ${new Date().toISOString()} by \`npm run bench\` (bench/orders.ts): ${os.cpus().length} CPUs (${os.cpus()[0]?.model.trim()}), ` +
      `${(os.totalmem() / 2 ** 30).toFixed(0)} GB, Node ${process.version}, PostgreSQL on 127.0.0.1; server, database, load generator and pgbench share the machine. ` +
      `\`serve --workers ${WORKERS}\` (server CPU: primary + workers; RSS: the largest single process). ` +
      `${CONNECTIONS} connections, ${DURATION} s per scenario after a ${WARM_UP_SECONDS} s warm-up (wrk, a C load generator like pgbench), ${ROUNDS} rounds of all scenarios; each figure is the median over the rounds (peak RSS: the maximum). Organization of ${N(BIG_ORDERS)} orders (4 projects, personal orders), ` +
      'caller = organization administrator, `project_id=All Projects`.' +
      (baselineCommit
        ? ` "Before this work" is commit ${baselineCommit.slice(0, 7)}, built from git and served with its own defaults (\`serve\` without flags) on the same database; in every round (c) and (d) before this work are measured right after today's, (a) before this work at the end of the round.`
        : ''),
    '',
    '| Scenario | req/s | p50 ms | p99 ms | server RSS MB per process | server CPU ms/req | PostgreSQL CPU ms/req |',
    '|---|---:|---:|---:|---:|---:|---:|',
    ...rows,
    '',
    '| Goal | Result |',
    '|---|---|',
    goal(ratio >= 0.5, `(a) ≥ 0.5 × pgbench's rate of the same SELECT in this run (${f(a.requestsPerSecond)} req/s vs ${f(pgb.requestsPerSecond)} tps: ${f(ratio, 2)} ×)`),
    goal(c.requestsPerSecond / pgc.requestsPerSecond >= 0.6, `(c) ≥ 0.6 × pgbench's rate of its SELECT in this run (${f(c.requestsPerSecond)} req/s vs ${f(pgc.requestsPerSecond)} tps: ${f(c.requestsPerSecond / pgc.requestsPerSecond, 2)} ×)`),
    goal(within(b.requestsPerSecond, a.requestsPerSecond, 20), `(b) within 20 % of (a) in req/s (${f((100 * b.requestsPerSecond) / a.requestsPerSecond)} %)`),
    goal(within(b.cpuMsPerRequest, a.cpuMsPerRequest, 20), `(b) within 20 % of (a) in server CPU per request (${f((100 * b.cpuMsPerRequest) / a.cpuMsPerRequest)} %)`),
    goal(within(d1.requestsPerSecond, d2.requestsPerSecond, 50), `(d) ${N(BIG_ORDERS)} orders within 50 % of 1,000 orders in req/s (${f((100 * d1.requestsPerSecond) / d2.requestsPerSecond)} %)`),
    goal(within(d1.cpuMsPerRequest, d2.cpuMsPerRequest, 50), `(d) the same in server CPU per request (${f((100 * d1.cpuMsPerRequest) / d2.cpuMsPerRequest)} %)`),
    notSlower(c, before.c0, '(c)'),
    notSlower(d1, before.d10, '(d)'),
    goal(a.p99 <= 100, `p99 of (a) at ${CONNECTIONS} connections ≤ 100 ms (${f(a.p99, 1)} ms)`),
    goal(peak <= 300, `server RSS ≤ 300 MB per process (peak ${f(peak)} MB)`),
    ...importGoals,
    '',
    `Reading the figures: the body of (a) is ${f(a.bodyKb)} KB (200 full orders with their presigned URLs), (c) ${f(c.bodyKb)} KB. ` +
      `One (a) request costs ${f(a.cpuMsPerRequest, 2)} ms of server CPU (the HTTP request and its bearer token, the page's first read: its ids, row versions and counts and the caller's projects in one statement; the body, kept from the last identical request or joined from cached items; writing ${f(a.bodyKb)} KB) and ${f(a.pgCpuMsPerRequest, 2)} ms of ` +
      `PostgreSQL CPU (that statement, against pgbench's bare SELECT of the 201 documents). With ${os.cpus().length} CPUs and nothing else running, that caps (a) near ` +
      `${f((1000 * os.cpus().length) / (a.cpuMsPerRequest + a.pgCpuMsPerRequest))} req/s before the load generator takes its share; ` +
      `half of pgbench's rate would be ${f(pgb.requestsPerSecond / 2)} req/s, which leaves ${f((1000 * os.cpus().length) / (pgb.requestsPerSecond / 2) - a.pgCpuMsPerRequest, 2)} ms ` +
      'of CPU per request for the server on this machine. pgbench\'s rate counts rows that never leave PostgreSQL\'s C code for JSON and HTTP. ' +
      'CPU per request is the figure other load moves least; req/s and latencies swing with it.' +
      (before.a0
        ? ` Before this work, (a) made ${f(before.a0.requestsPerSecond)} req/s (p99 ${f(before.a0.p99)} ms) in this run at ${f(before.a0.cpuMsPerRequest, 2)} ms of server CPU and ${f(before.a0.pgCpuMsPerRequest, 2)} ms of PostgreSQL CPU per request.`
        : ''),
    '',
    `Errors or non-2xx answers during the runs: ${Object.values(results).reduce((n, m) => n + m.errors, 0)}. (c) returns previews, so it moves fewer bytes than (a). ` +
      `Load average when the benchmark started (1/5/15 min): ${INITIAL_LOAD.map((l) => l.toFixed(1)).join(' / ')}; ` +
      'work of others on the same machine (and on the same PostgreSQL server) lowers every figure, pgbench included.',
    '',
  ].join('\n');
}

async function main(): Promise<void> {
  await ensureDatabase(DATABASE_URL);
  const handle = await openDatabase({ databaseUrl: DATABASE_URL, pgliteDir: null });
  try {
    await migrate(handle);
    await ensureData(handle);
  } finally {
    await handle.close();
  }
  if (FLAGS.prepare) return;
  log(`building dist/ (serve runs the compiled program)`);
  const build = spawnSync('npm', ['run', 'build'], { cwd: ROOT, encoding: 'utf8' });
  if (build.status !== 0) log(`npm run build reported errors; continuing with the emitted dist/:\n${build.stdout.slice(-2000)}`);
  // Each round runs every scenario once; the table shows per-scenario medians, so one disturbed run on a
  // shared machine does not decide the figures.
  const baseline = FLAGS.baseline === 'none' ? null : buildBaseline(ROOT, FLAGS.baseline);
  if (baseline) log(`before this work: ${baseline.commit.slice(0, 7)}, built in ${baseline.root}`);
  const rounds: Array<Record<string, Measurement>> = [];
  const server = await startServer();
  // Idle while the other is measured: both share the database, so the data and its caches are the same.
  const then = baseline ? await startServer(baseline.root, null, 'certdesk-bench-before') : null;
  const stop = () => {
    void stopChild(server.child, 10_000);
    if (then) void stopChild(then.child, 10_000);
  };
  process.once('SIGINT', stop);
  try {
    log(`server ${server.baseUrl}, pid ${server.child.pid}${then ? `; before this work: ${then.baseUrl}, pid ${then.child.pid}` : ''}`);
    const big = await tokenFor(server.baseUrl, 'big');
    const small = await tokenFor(server.baseUrl, 'small');
    const bigThen = then ? await tokenFor(then.baseUrl, 'big') : null;
    const list = (q: string, at = server) => `${at.baseUrl}/v1/orders?project_id=All%20Projects&${q}`;
    const deepPage = await tokenOfPage(server.baseUrl, big, DEEP_PAGE);
    for (let round = 1; round <= ROUNDS; round++) {
      log(`round ${round} of ${ROUNDS}`);
      const r: Record<string, Measurement> = {};
      // Each goal compares two figures: they are measured one right after the other, so a change in what
      // else the machine runs (it is shared, and its speed drifts over minutes) moves both alike.
      r.pgb = pgbench(BIG.id);
      r.a = await measure('(a) limit=200, first page', list('limit=200'), big, server, 200);
      r.b = await measure(`(b) limit=200, page ${N(DEEP_PAGE)} (replayed token)`, list(`limit=200&page_token=${deepPage}`), big, server, 200);
      r.pgc = pgbench(BIG.id, 'bench/pgbench-keyset-preview.sql', 'pgbench: bare keyset SELECT of (c)');
      r.c = await measure('(c) limit=200&preview=true', list('limit=200&preview=true'), big, server, 200);
      if (then) r.c0 = await measure('(c) before this work', list('limit=200&preview=true', then), bigThen!, then, 200);
      r.d1 = await measure(`(d) limit=1, ${N(BIG_ORDERS)} orders`, list('limit=1'), big, server, 1);
      r.d2 = await measure('(d) limit=1, 1,000 orders', list('limit=1'), small, server, 1);
      if (then) r.d10 = await measure(`(d) ${N(BIG_ORDERS)} orders, before this work`, list('limit=1', then), bigThen!, then, 1);
      if (then) r.a0 = await measure('(a) before this work', list('limit=200', then), bigThen!, then, 200);
      rounds.push(r);
    }
  } finally {
    await stopChild(server.child, 10_000);
    if (then) await stopChild(then.child, 10_000);
  }
  const keys = ['a', 'a0', 'b', 'c', 'c0', 'd1', 'd10', 'd2', 'pgb', 'pgc'].filter((k) => rounds[0]![k]);
  const ordered = Object.fromEntries(keys.map((k) => [k, medianOf(rounds.map((r) => r[k]!))]));
  // The import goal in the same run, after the listing (the server is stopped, so it does not compete).
  let imported: ImportFigures | null = null;
  if (IMPORT_ORDERS > 0) {
    log(`import of ${N(IMPORT_ORDERS)} orders (bench/import.ts)`);
    imported = await runImportBenchmark(IMPORT_ORDERS);
    writeBenchmarkSection('## Import', imported.section);
  }
  const section = report(ordered, imported, baseline?.commit ?? null);
  process.stdout.write(`\n${section}`);
  writeBenchmarkSection('## Orders listing', section);
  log(`wrote docs/benchmarks.md (load average now ${os.loadavg().map((l) => l.toFixed(1)).join(' / ')})`);
}

main().catch((err: unknown) => {
  process.stderr.write(`[bench] failed: ${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
