/**
 * The export benchmark of issue 21 (`npm run bench:client`): not a test. Goal: exporting every order of
 * the benchmark organization (1,000,000 orders in PostgreSQL) to NDJSON with
 * `certdesk-client orders list --all --ndjson` at ≥ 20,000 orders/s with constant memory (≤ 200 MB RSS
 * of the client), reported beside `curl` walking the same pages in the same run.
 *
 * 1. Creates a scratch PostgreSQL database next to DATABASE_URL (default postgres://postgres@127.0.0.1:5432/postgres):
 *    `certdesk_bench_client_<pid>`, migrated, with the benchmark organization of `npm run bench`
 *    (bench/bench-organization.ts: the same seed and the same order documents, generated inside
 *    PostgreSQL with generate_series, 100,000 per statement).
 * 2. Starts `certdesk serve` (dist/, its default workers) as a child process on 127.0.0.1.
 *    Warms the server up with 60 pages fetched by curl (not reported).
 * 3. Runs the built bin (clients/typescript/dist/cli/certdesk-client.js) as a child process with the
 *    organization's read client in CERTDESK_* variables; its NDJSON is read and counted here. The client's
 *    peak RSS is VmHWM of /proc/<pid>/status (sampled every 50 ms until it exits), its CPU time from
 *    /proc/<pid>/stat, and its RSS at 10 % and at 90 % of the orders shows whether memory stays flat.
 * 4. Walks the same pages with curl, one `curl` process per page (the next page token is read from the
 *    envelope before the orders, the orders counted by their `"order_id"` keys, so this script adds no JSON parse).
 * 5. Stops the server, drops the database (also on failure or Ctrl-C), prints the section and writes it
 *    to docs/benchmarks.md under "## TypeScript client export".
 *
 * Flags: --orders N (default 1,000,000), --limit N (page size, default 1000, the API's maximum),
 * --rounds R (client then curl, R times; default 1). `npm run bench:client -- --orders 100000` for a quick run.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { sql } from 'kysely';
import pg from 'pg';
import { loadSeed } from '../src/domain/seed/seed.js';
import { openDatabase } from '../src/storage/database.js';
import { migrate } from '../src/storage/migrate.js';
import { LocalDirectoryStorage } from '../src/storage/object-storage/index.js';
import { writeBenchmarkSection } from './benchmarks-doc.js';
import { insertOrders, secretOf, seedDocument, type BenchOrganization } from './bench-organization.js';
import { cpuMsOf, postgresBackends, processTree, servingUrl, stopChild } from './server-process.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const BIN = path.join(ROOT, 'clients/typescript/dist/cli/certdesk-client.js');
const { values: FLAGS } = parseArgs({ options: { orders: { type: 'string' }, limit: { type: 'string' }, rounds: { type: 'string' } } });
const count = (v: string | undefined, fallback: number) => (v === undefined ? fallback : Math.max(1, Math.floor(Number(v.replace(/[_,]/g, '')))));
const ORDERS = count(FLAGS.orders, 1_000_000);
const LIMIT = count(FLAGS.limit, 1000);
const ROUNDS = count(FLAGS.rounds, 1);
const GOAL_ORDERS_PER_SECOND = 20_000;
const GOAL_RSS_MB = 200;
const ORG: BenchOrganization = { id: 'be000000-0000-4000-8000-000000000001', name: 'Bench Big', orders: ORDERS, slug: 'big' };
const ADMIN_URL = new URL(process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres');
ADMIN_URL.pathname = '/postgres';
const DATABASE_NAME = `certdesk_bench_client_${process.pid}`;
const DATABASE_URL = (() => {
  const url = new URL(ADMIN_URL);
  url.pathname = `/${DATABASE_NAME}`;
  return url.toString();
})();
const INITIAL_LOAD = os.loadavg();
const N = (n: number) => Math.round(n).toLocaleString('en-US');

function log(message: string): void {
  process.stderr.write(`[bench:client] ${message}\n`);
}

async function admin<T>(run: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: ADMIN_URL.toString() });
  await client.connect();
  try {
    return await run(client);
  } finally {
    await client.end();
  }
}

async function seed(): Promise<void> {
  await admin((c) => c.query(`CREATE DATABASE ${DATABASE_NAME}`));
  const handle = await openDatabase({ databaseUrl: DATABASE_URL, pgliteDir: null });
  const objects = mkdtempSync(path.join(os.tmpdir(), 'certdesk-bench-client-objects-'));
  try {
    await migrate(handle);
    await loadSeed(handle.db, new LocalDirectoryStorage(objects), seedDocument([ORG]));
    const started = Date.now();
    const chunk = 100_000;
    for (let from = 0; from < ORDERS; from += chunk) {
      await insertOrders(handle, ORG, from, Math.min(ORDERS, from + chunk));
      log(`seeded ${N(Math.min(ORDERS, from + chunk))} / ${N(ORDERS)} orders (${((Date.now() - started) / 1000).toFixed(0)} s)`);
    }
    await sql`VACUUM ANALYZE orders`.execute(handle.db);
    await sql`VACUUM ANALYZE order_counters`.execute(handle.db);
  } finally {
    await handle.close();
    rmSync(objects, { recursive: true, force: true });
  }
}

async function dropDatabase(): Promise<void> {
  await admin((c) => c.query(`DROP DATABASE IF EXISTS ${DATABASE_NAME} WITH (FORCE)`));
}

function statusKb(pid: number, field: string): number {
  try {
    return Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0);
  } catch {
    return 0; // exited between samples
  }
}

interface ClientRun {
  orders: number;
  seconds: number;
  peakRssMb: number;
  /** RSS when 10 % and 90 % of the orders had arrived: flat memory means these are close. */
  rssAt10Mb: number;
  rssAt90Mb: number;
  cpuSeconds: number;
  bytes: number;
}

async function runClient(baseUrl: string): Promise<ClientRun> {
  const env = { PATH: process.env.PATH ?? '', HOME: os.tmpdir(), CERTDESK_BASE_URL: baseUrl, CERTDESK_CLIENT_ID: `bench-${ORG.slug}`, CERTDESK_CLIENT_SECRET: secretOf(ORG.slug) };
  const started = performance.now();
  const child = spawn(process.execPath, [BIN, 'orders', 'list', '--all', '--ndjson', '--limit', String(LIMIT)], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let lines = 0;
  let bytes = 0;
  let stderr = '';
  let first = '';
  let tail: Buffer = Buffer.alloc(0);
  let peakKb = 0;
  let cpuMs = 0;
  let rssAt10 = 0;
  let rssAt90 = 0;
  const sample = () => {
    peakKb = Math.max(peakKb, statusKb(child.pid!, 'VmHWM'));
    cpuMs = Math.max(cpuMs, cpuMsOf(child.pid!));
    const rss = statusKb(child.pid!, 'VmRSS');
    if (!rssAt10 && lines >= ORDERS * 0.1) rssAt10 = rss;
    if (!rssAt90 && lines >= ORDERS * 0.9) rssAt90 = rss;
  };
  const sampler = setInterval(sample, 50);
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  child.stdout.on('data', (chunk: Buffer) => {
    bytes += chunk.length;
    if (first.length < 1_000_000 && !first.includes('\n')) first += chunk.toString();
    for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, i + 1)) lines++;
    tail = chunk.length >= 1_000_000 ? chunk : Buffer.concat([tail, chunk]).subarray(-1_000_000);
  });
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  clearInterval(sampler);
  const seconds = (performance.now() - started) / 1000;
  if (code !== 0) throw new Error(`certdesk-client exited ${code}: ${stderr}`);
  // The output is NDJSON of orders: its first and last lines parse, and every order arrived.
  const last = tail.toString().trimEnd().split('\n').at(-1)!;
  for (const line of [first.split('\n')[0]!, last]) if (typeof (JSON.parse(line) as { order_id?: unknown }).order_id !== 'string') throw new Error(`not an order: ${line.slice(0, 200)}`);
  if (lines !== ORDERS) throw new Error(`certdesk-client printed ${lines} orders, expected ${ORDERS}`);
  return { orders: lines, seconds, peakRssMb: peakKb / 1024, rssAt10Mb: rssAt10 / 1024, rssAt90Mb: rssAt90 / 1024, cpuSeconds: cpuMs / 1000, bytes };
}

/** One `curl` process; its standard output as a Buffer. */
function curl(args: string[]): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const child: ChildProcess = spawn('curl', ['-sS', '--fail', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    const chunks: Buffer[] = [];
    let stderr = '';
    child.stdout!.on('data', (c: Buffer) => chunks.push(c));
    child.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve(Buffer.concat(chunks)) : reject(new Error(`curl exited ${code}: ${stderr}`))));
  });
}

const ORDER_KEY = Buffer.from('"order_id"');

async function runCurl(baseUrl: string, maxPages = Infinity): Promise<{ orders: number; seconds: number; pages: number }> {
  const started = performance.now();
  const form = `grant_type=client_credentials&client_id=bench-${ORG.slug}&client_secret=${secretOf(ORG.slug)}`;
  const token = (JSON.parse((await curl(['-d', form, `${baseUrl}/oauth2/token`])).toString()) as { access_token: string }).access_token;
  let pageToken: string | null = null;
  let orders = 0;
  let pages = 0;
  do {
    const url: string = `${baseUrl}/v1/orders?project_id=All%20Projects&limit=${LIMIT}${pageToken ? `&page_token=${encodeURIComponent(pageToken)}` : ''}`;
    const body = await curl(['-H', `authorization: Bearer ${token}`, url]);
    pages++;
    // Each order carries its order_id once (no nested object has one).
    for (let i = body.indexOf(ORDER_KEY); i !== -1; i = body.indexOf(ORDER_KEY, i + 1)) orders++;
    // The envelope (stats, project names, next_page_token) comes before the orders.
    const m = /"next_page_token":(null|"([^"]*)")/.exec(body.subarray(0, body.indexOf('"orders":')).toString());
    if (!m) throw new Error(`no next_page_token before the orders of page ${pages}`);
    pageToken = m[2] ?? null;
  } while (pageToken && pages < maxPages);
  return { orders, seconds: (performance.now() - started) / 1000, pages };
}

/**
 * Runs `work` and adds the CPU per order (µs) it cost the server (primary and workers, read before and
 * after) and the scratch database's PostgreSQL backends (sampled every 200 ms while it runs, since the
 * server's pool may close idle connections and open new ones in between).
 */
async function withServerCpu<R extends { orders: number }>(serverPid: number, work: () => Promise<R>): Promise<R & { serverUsPerOrder: number; postgresUsPerOrder: number }> {
  const serverCpu = () => processTree(serverPid).reduce((sum, pid) => sum + cpuMsOf(pid), 0);
  const backends = new Map<number, { first: number; last: number }>();
  const sampleBackends = () => {
    for (const pid of postgresBackends(DATABASE_NAME)) {
      const cpu = cpuMsOf(pid);
      const seen = backends.get(pid);
      if (seen) seen.last = Math.max(seen.last, cpu);
      else backends.set(pid, { first: cpu, last: cpu });
    }
  };
  sampleBackends();
  const sampler = setInterval(sampleBackends, 200);
  const before = serverCpu();
  try {
    const result = await work();
    const server = serverCpu() - before;
    sampleBackends();
    const postgres = [...backends.values()].reduce((sum, b) => sum + (b.last - b.first), 0);
    return { ...result, serverUsPerOrder: (1000 * server) / result.orders, postgresUsPerOrder: (1000 * postgres) / result.orders };
  } finally {
    clearInterval(sampler);
  }
}

type Measured<R> = R & { serverUsPerOrder: number; postgresUsPerOrder: number };

function section(clients: Array<Measured<ClientRun>>, curls: Array<Measured<{ orders: number; seconds: number; pages: number }>>, endLoad: number[]): string {
  const rate = (n: number, s: number) => n / s;
  const goal = (ok: boolean, text: string) => `| ${text} | ${ok ? 'met' : '**not met**'} |`;
  const worstRate = Math.min(...clients.map((c) => rate(c.orders, c.seconds)));
  const peak = Math.max(...clients.map((c) => c.peakRssMb));
  const rows = clients.map((c, i) => {
    const k = curls[i]!;
    const us = (n: number) => n.toFixed(1);
    return `| ${i + 1} | ${c.seconds.toFixed(1)} s, **${N(rate(c.orders, c.seconds))} orders/s** | ${c.peakRssMb.toFixed(0)} MB (at 10 %: ${c.rssAt10Mb.toFixed(0)}, at 90 %: ${c.rssAt90Mb.toFixed(0)}) | ${c.cpuSeconds.toFixed(1)} s (${us((1e6 * c.cpuSeconds) / c.orders)} µs/order) | ${us(c.serverUsPerOrder)} / ${us(c.postgresUsPerOrder)} | ${k.seconds.toFixed(1)} s, ${N(rate(k.orders, k.seconds))} orders/s | ${us(k.serverUsPerOrder)} / ${us(k.postgresUsPerOrder)} |`;
  });
  return [
    '## TypeScript client export',
    '',
    `Run ${new Date().toISOString()} by \`npm run bench:client${ORDERS === 1_000_000 ? '' : ` -- --orders ${ORDERS}`}\` (bench/client-export.ts): ${os.cpus().length} CPUs (${os.cpus()[0]?.model.trim()}), ` +
      `${(os.totalmem() / 2 ** 30).toFixed(0)} GB, Node ${process.version}, PostgreSQL on 127.0.0.1. The benchmark organization of \`npm run bench\` ` +
      `(${N(ORDERS)} orders with full documents: analyses, annotations, layers, presigned preview URLs) in a scratch database; \`certdesk serve\` ` +
      `(its default workers) in a process of its own; \`certdesk-client orders list --all --ndjson --limit ${LIMIT}\` (the built bin, its output ` +
      'read and counted by the script, as a pipe would), after up to 60 unreported warm-up pages, then `curl` walking the same pages (one curl process per page, the next token taken from the body) in the same run. ' +
      'Server, database, client and curl share the machine.',
    '',
    '| round | certdesk-client | client peak RSS | client CPU | server / PostgreSQL CPU µs per order (client) | curl, same pages | server / PostgreSQL CPU µs per order (curl) |',
    '|---|---:|---:|---:|---:|---:|---:|',
    ...rows,
    '',
    '| Goal | Result |',
    '|---|---|',
    goal(worstRate >= GOAL_ORDERS_PER_SECOND, `Export of ${N(ORDERS)} orders ≥ ${N(GOAL_ORDERS_PER_SECOND)} orders/s (${N(worstRate)}${ROUNDS > 1 ? ', the slowest round' : ''})`),
    goal(peak <= GOAL_RSS_MB, `Client peak RSS ≤ ${GOAL_RSS_MB} MB, constant (${peak.toFixed(0)} MB)`),
    '',
    `Output: ${(clients[0]!.bytes / 2 ** 20).toFixed(0)} MiB of NDJSON (${N(clients[0]!.bytes / clients[0]!.orders)} bytes per order), ${N(curls[0]!.pages)} pages. ` +
      `Load average (1/5/15 min) at the start ${INITIAL_LOAD.map((l) => l.toFixed(1)).join(' / ')}, at the end ${endLoad.map((l) => l.toFixed(1)).join(' / ')}: ` +
      'the machine is shared, so the rates are indicative; CPU per order is the figure other load moves least. ' +
      `On ${os.cpus().length} otherwise idle CPUs the server's and PostgreSQL's CPU per order bound any client's rate near ` +
      `${N((1e6 * os.cpus().length) / (curls[0]!.serverUsPerOrder + curls[0]!.postgresUsPerOrder))} orders/s (curl's round 1), before the client's own CPU.`,
    '',
  ].join('\n');
}

async function main(): Promise<void> {
  log(`scratch database ${DATABASE_NAME}; seeding ${N(ORDERS)} orders`);
  let server: ChildProcess | null = null;
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'certdesk-bench-client-serve-'));
  const interrupted = () => {
    log('interrupted: stopping the server and dropping the database');
    void (async () => {
      if (server) await stopChild(server, 10_000);
      await dropDatabase();
      process.exit(130);
    })();
  };
  process.once('SIGINT', interrupted);
  try {
    await seed();
    server = spawn(process.execPath, [path.join(ROOT, 'bin/certdesk'), 'serve'], {
      cwd: ROOT,
      env: { ...process.env, DATABASE_URL, HOST: '127.0.0.1', PORT: '0', LOG_LEVEL: 'warn', DATA_DIR: dataDir, CERTDESK_ENV: process.env.CERTDESK_ENV ?? 'test' },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const baseUrl = await servingUrl(server);
    log(`server ${baseUrl} (pid ${server.pid}); load average ${os.loadavg().map((l) => l.toFixed(1)).join(' / ')}`);
    // A fresh server compiles its listing and rendering code on the first pages (several times slower
    // than later ones): warm both of its workers up, unmeasured, so neither contender pays for it.
    const warmUp = await runCurl(baseUrl, 60);
    log(`warm-up: ${warmUp.pages} pages with curl in ${warmUp.seconds.toFixed(1)} s (not reported)`);
    const clients: Array<Measured<ClientRun>> = [];
    const curls: Array<Measured<{ orders: number; seconds: number; pages: number }>> = [];
    const serverPid = server.pid!;
    for (let round = 1; round <= ROUNDS; round++) {
      const c = await withServerCpu(serverPid, () => runClient(baseUrl));
      log(`round ${round}: certdesk-client ${N(c.orders)} orders in ${c.seconds.toFixed(1)} s = ${N(c.orders / c.seconds)} orders/s, peak RSS ${c.peakRssMb.toFixed(0)} MB (10 %: ${c.rssAt10Mb.toFixed(0)}, 90 %: ${c.rssAt90Mb.toFixed(0)}), CPU ${c.cpuSeconds.toFixed(1)} s; server / PostgreSQL ${c.serverUsPerOrder.toFixed(1)} / ${c.postgresUsPerOrder.toFixed(1)} µs per order`);
      const k = await withServerCpu(serverPid, () => runCurl(baseUrl));
      if (k.orders !== ORDERS) throw new Error(`curl counted ${k.orders} orders, expected ${ORDERS}`);
      log(`round ${round}: curl ${N(k.orders)} orders in ${k.seconds.toFixed(1)} s = ${N(k.orders / k.seconds)} orders/s (${k.pages} pages); server / PostgreSQL ${k.serverUsPerOrder.toFixed(1)} / ${k.postgresUsPerOrder.toFixed(1)} µs per order`);
      clients.push(c);
      curls.push(k);
    }
    const text = section(clients, curls, os.loadavg());
    process.stdout.write(`\n${text}`);
    writeBenchmarkSection('## TypeScript client export', text);
    log('wrote docs/benchmarks.md');
  } finally {
    process.removeListener('SIGINT', interrupted);
    if (server) await stopChild(server, 10_000);
    rmSync(dataDir, { recursive: true, force: true });
    await dropDatabase();
    log(`dropped ${DATABASE_NAME}`);
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`[bench:client] failed: ${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
