/**
 * Import benchmark (`npm run bench:import`): not a test.
 *
 * 1. Drops and recreates a PostgreSQL database (BENCH_IMPORT_DATABASE_URL, or DATABASE_URL when run directly;
 *    default postgres://postgres@127.0.0.1:5432/certdesk_bench_import) and loads the demo seed into it.
 * 2. Generates BENCH_ORDERS (default 1,000,000) orders as NDJSON into a temporary file with
 *    `certdesk demo-data --ndjson`.
 * 3. Runs `certdesk import` on that file in a child process, sampling the child's peak RSS (VmHWM of
 *    /proc/<pid>/status) until it exits, and checks the row count and order_counters afterwards.
 * 4. The database's own bulk load of the same rows, for the ratio: the imported rows (already rendered) are
 *    written out in binary COPY format (not timed), the database is recreated and seeded again, and one
 *    `COPY orders (...) FROM STDIN` of that file into the same table, with the same indexes, foreign keys
 *    and counter trigger, is timed from BEGIN to COMMIT (the import's work_mem), after a CHECKPOINT.
 * 5. Prints a markdown table and writes it to docs/benchmarks.md under "## Import" (only that section).
 *
 * The CLI runs from dist/ when it has been built (`npm run build`), else through tsx.
 */
import { spawn } from 'node:child_process';
import { createReadStream, createWriteStream, existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { pipeline } from 'node:stream/promises';
import { from as copyFrom, to as copyTo } from 'pg-copy-streams';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { DEMO_PRIMARY } from '../src/demo/index.js';
import { IMPORT_COLUMNS } from '../src/domain/order-import/order-import.repository.js';
import { writeBenchmarkSection } from './benchmarks-doc.js';
import { cpuMsOf } from './server-process.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
// BENCH_IMPORT_DATABASE_URL first: inside `npm run bench`, DATABASE_URL names the listing's database, which
// this benchmark would drop.
const RUN_DIRECTLY = Boolean(process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url));
const DATABASE_URL =
  process.env.BENCH_IMPORT_DATABASE_URL || (RUN_DIRECTLY && process.env.DATABASE_URL) || 'postgres://postgres@127.0.0.1:5432/certdesk_bench_import';
const DEFAULT_ORDERS = Number(process.env.BENCH_ORDERS ?? 1_000_000);
const BUILT = existsSync(path.join(ROOT, 'dist/cli/commands/import.js'));
const CLI = BUILT ? [path.join(ROOT, 'bin/certdesk')] : ['--import', 'tsx', '-e', `import(${JSON.stringify(path.join(ROOT, 'src/cli/main.ts'))}).then((m) => m.main(['node', 'certdesk', ...process.argv.slice(1)]))`, '--'];

interface ChildResult {
  code: number | null;
  stdout: string;
  stderr: string;
  peakRssKb: number;
  seconds: number;
  /** CPU time (user + system) of the process, sampled until it exits (at most one sample interval short). */
  cpuMs: number;
}

function readHwmKb(pid: number): number | null {
  try {
    const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) : null;
  } catch {
    return null; // exited between samples
  }
}

function certdesk(args: string[]): Promise<ChildResult> {
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    const child = spawn(process.execPath, [...CLI, ...args], { env: { ...process.env, DATABASE_URL }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    let peak = 0;
    let cpuMs = 0;
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => {
      stderr += c.toString();
      process.stderr.write(c);
    });
    // VmHWM is the high-water mark itself, so sampling only has to catch the process before it exits.
    const sampler = setInterval(() => {
      peak = Math.max(peak, readHwmKb(child.pid!) ?? 0);
      cpuMs = Math.max(cpuMs, cpuMsOf(child.pid!));
    }, 50);
    child.on('error', reject);
    child.on('exit', () => {
      clearInterval(sampler);
    });
    child.on('close', (code) => resolve({ code, stdout, stderr, peakRssKb: peak, seconds: Number(process.hrtime.bigint() - started) / 1e9, cpuMs }));
  });
}

async function recreateDatabase(): Promise<void> {
  const url = new URL(DATABASE_URL);
  const name = url.pathname.slice(1);
  if (!/^[a-z_][a-z0-9_]*$/.test(name)) throw new Error(`benchmark database name must be a plain identifier, got "${name}"`);
  const adminUrl = new URL(DATABASE_URL);
  adminUrl.pathname = '/postgres';
  const admin = new pg.Client({ connectionString: adminUrl.toString() });
  await admin.connect();
  try {
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
}

/**
 * Samples the CPU time of the benchmark database's server backends (the import's connections) until
 * stopped. Only meaningful when the server runs on this machine and /proc shows its processes; 0 otherwise.
 */
function sampleBackendCpu(): { stop(): Promise<number> } {
  const name = new URL(DATABASE_URL).pathname.slice(1);
  const adminUrl = new URL(DATABASE_URL);
  adminUrl.pathname = '/postgres';
  const client = new pg.Client({ connectionString: adminUrl.toString() });
  const seen = new Map<number, number>();
  let stopped = false;
  const loop = (async () => {
    await client.connect();
    while (!stopped) {
      const { rows } = await client.query<{ pid: number }>("SELECT pid FROM pg_stat_activity WHERE datname = $1 AND backend_type = 'client backend'", [name]);
      for (const pid of new Set([...rows.map((r) => r.pid), ...seen.keys()])) seen.set(pid, Math.max(seen.get(pid) ?? 0, cpuMsOf(pid)));
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    await client.end();
  })();
  return {
    async stop() {
      stopped = true;
      await loop;
      return [...seen.values()].reduce((a, b) => a + b, 0);
    },
  };
}

/**
 * Writes out the dirty buffers of whatever ran before (the listing benchmark, the seed), so that the
 * import starts from the same state every time instead of sharing the disk and a CPU with a checkpoint of
 * someone else's writes. Not timed. Needs a superuser or pg_checkpoint; without it the run goes on as is.
 */
async function checkpoint(): Promise<void> {
  const client = new pg.Client({ connectionString: DATABASE_URL });
  await client.connect();
  try {
    await client.query('CHECKPOINT');
  } catch (err) {
    process.stderr.write(`CHECKPOINT refused (${(err as Error).message}); importing without it\n`);
  } finally {
    await client.end();
  }
}

async function verify(): Promise<{ orders: number; counters: number }> {
  const client = new pg.Client({ connectionString: DATABASE_URL });
  await client.connect();
  try {
    const orders = Number((await client.query('SELECT count(*) AS n FROM orders WHERE order_id LIKE $1', ['bench-%'])).rows[0].n);
    const counters = Number((await client.query('SELECT coalesce(sum(order_count), 0) - (SELECT count(*) FROM orders) AS drift FROM order_counters')).rows[0].drift);
    return { orders, counters };
  } finally {
    await client.end();
  }
}

/** Writes the imported rows, in IMPORT_COLUMNS and in the order they were imported, as a binary COPY file. */
async function exportRows(file: string): Promise<void> {
  const client = new pg.Client({ connectionString: DATABASE_URL });
  await client.connect();
  try {
    const out = client.query(copyTo(`COPY (SELECT ${IMPORT_COLUMNS.join(', ')} FROM orders WHERE order_id LIKE 'bench-%' ORDER BY order_id) TO STDOUT WITH (FORMAT binary)`));
    await pipeline(out, createWriteStream(file));
  } finally {
    await client.end();
  }
}

/**
 * The database's own bulk load: one COPY of `file` into orders in one transaction, timed from BEGIN to
 * COMMIT, with the backend's CPU time.
 */
async function copyRows(file: string): Promise<{ seconds: number; backendCpuMs: number }> {
  const client = new pg.Client({ connectionString: DATABASE_URL });
  await client.connect();
  try {
    const pid = Number((await client.query('SELECT pg_backend_pid() AS pid')).rows[0].pid);
    const cpuBefore = cpuMsOf(pid);
    const started = process.hrtime.bigint();
    await client.query('BEGIN');
    await client.query("SET LOCAL work_mem = '64MB'");
    await pipeline(createReadStream(file, { highWaterMark: 1024 * 1024 }), client.query(copyFrom(`COPY orders (${IMPORT_COLUMNS.join(', ')}) FROM STDIN WITH (FORMAT binary)`)));
    await client.query('COMMIT');
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    return { seconds, backendCpuMs: cpuMsOf(pid) - cpuBefore };
  } finally {
    await client.end();
  }
}

function must(result: ChildResult, what: string): ChildResult {
  if (result.code !== 0) throw new Error(`${what} failed (exit ${result.code}): ${result.stderr.trim().split('\n').at(-1)}`);
  return result;
}

/** The import figures, for `npm run bench` (bench/orders.ts) to judge against the goals. */
export interface ImportFigures {
  orders: number;
  ordersPerSecond: number;
  /** The database's own COPY of the same rows into the same table, in the same run. */
  copyRowsPerSecond: number;
  peakRssMb: number;
  counterDrift: number;
  /** The markdown of docs/benchmarks.md's "## Import" section. */
  section: string;
}

/** Generates `ORDERS` orders, imports them into a fresh database and checks the result (see the header). */
export async function runImportBenchmark(ORDERS = DEFAULT_ORDERS): Promise<ImportFigures> {
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'certdesk-bench-import-'));
  try {
    process.stderr.write(`recreating ${DATABASE_URL.replace(/:[^:@/]+@/, ':***@')} and loading the demo seed\n`);
    await recreateDatabase();
    const seedFile = path.join(tmp, 'demo-seed.json');
    must(await certdesk(['demo-data', '--seed-file', seedFile]), 'demo-data --seed-file');
    must(await certdesk(['--object-storage-dir', path.join(tmp, 'objects'), 'seed', seedFile]), 'seed');
    const ndjson = path.join(tmp, 'orders.ndjson');
    process.stderr.write(`generating ${ORDERS.toLocaleString('en-US')} orders\n`);
    const generated = must(await certdesk(['demo-data', '--ndjson', String(ORDERS), '--org', DEMO_PRIMARY.id, '--prefix', 'bench', '--out', ndjson]), 'demo-data --ndjson');
    const bytes = statSync(ndjson).size;
    process.stderr.write(`importing ${(bytes / 1e6).toFixed(0)} MB\n`);
    // The same command on an empty file: the process's fixed cost (start, module loading, connecting), taken
    // out of the CPU per order.
    const empty = path.join(tmp, 'empty.ndjson');
    writeFileSync(empty, '');
    const startup = must(await certdesk(['import', '--org', DEMO_PRIMARY.id, empty, '--json']), 'import of an empty file');
    await checkpoint();
    const backend = sampleBackendCpu();
    const imported = must(await certdesk(['import', '--org', DEMO_PRIMARY.id, ndjson, '--json']), 'import');
    const backendCpuMs = await backend.stop();
    const report = JSON.parse(imported.stdout) as { orders: number; seconds: number; ordersPerSecond: number };
    const check = await verify();
    if (check.orders !== ORDERS || check.counters !== 0) throw new Error(`verification failed: ${check.orders} orders, counter drift ${check.counters}`);
    const pgVersion = await (async () => {
      const c = new pg.Client({ connectionString: DATABASE_URL });
      await c.connect();
      try {
        return String((await c.query('SHOW server_version')).rows[0].server_version);
      } finally {
        await c.end();
      }
    })();
    // The reference: the same rows, already rendered, loaded by the database's own COPY into a fresh copy of the same database.
    const copyFile = path.join(tmp, 'orders.copy');
    await exportRows(copyFile);
    rmSync(ndjson, { force: true });
    await recreateDatabase();
    must(await certdesk(['--object-storage-dir', path.join(tmp, 'objects-copy'), 'seed', seedFile]), 'seed (for COPY)');
    await checkpoint();
    const copied = await copyRows(copyFile);
    const copyCheck = await verify();
    if (copyCheck.orders !== ORDERS || copyCheck.counters !== 0) throw new Error(`COPY reference: ${copyCheck.orders} orders, counter drift ${copyCheck.counters}`);
    const copyRate = ORDERS / copied.seconds;
    const ratio = report.ordersPerSecond / copyRate;
    const rate = (n: number) => Math.round(n).toLocaleString('en-US');
    const nodeUs = (Math.max(0, imported.cpuMs - startup.cpuMs) * 1000) / ORDERS;
    const backendUs = (backendCpuMs * 1000) / ORDERS;
    const bound = (us: number) => rate(1e6 / us);
    const limit =
      backendUs > 0
        ? `What limits the rate: the import is a pipeline of two processes, each on its own core, the \`certdesk import\` process (read, parse, validate, render, encode: ${nodeUs.toFixed(1)} µs of CPU per order, so at most ${bound(nodeUs)} orders/s) and its PostgreSQL backend (COPY input, heap and five indexes, two foreign-key checks per row, json/jsonb parsing, the counter trigger, WAL: ${backendUs.toFixed(1)} µs per order, at most ${bound(backendUs)}/s). The busier side, ${nodeUs >= backendUs ? 'the Node process' : 'the database backend'}, sets the pace; together they need ${(nodeUs + backendUs).toFixed(1)} µs of CPU per order from the machine's ${os.cpus().length} cores, shared with PostgreSQL's WAL writer and checkpointer and with anything else running.`
        : 'The backend CPU could not be read (/proc does not show the database server on this machine).';
    const table = [
      `\`npm run bench:import\` (bench/import.ts): ${ORDERS.toLocaleString('en-US')} generated orders (${(bytes / 1e6).toFixed(0)} MB of NDJSON, ~${Math.round(bytes / ORDERS)} bytes an order) imported with \`certdesk import\` into a fresh PostgreSQL ${pgVersion} database (after a CHECKPOINT, not timed, so the writes of whatever ran before do not land on the import): one transaction, binary COPY in segments of 25,000 rows, primary key, four keyset indexes, two foreign keys and the counter trigger in place.`,
      '',
      '| Measure | Value | Goal |',
      '|---|---|---|',
      `| Orders imported per second (inside the import, parse + validate + render + COPY + commit) | ${rate(report.ordersPerSecond)} | |`,
      `| The database's own COPY of the same rows (already rendered, binary, one statement, same table, indexes, foreign keys and trigger), rows per second | ${rate(copyRate)} (${copied.seconds.toFixed(1)} s; backend CPU ${((copied.backendCpuMs * 1000) / ORDERS).toFixed(1)} µs per row) | |`,
      `| **Import ÷ COPY** | **${ratio.toFixed(2)} ×** | ≥ 0.8 × |`,
      `| Import wall time, whole process (start, migrate check, import, exit) | ${imported.seconds.toFixed(1)} s | |`,
      `| CPU per order, \`certdesk import\` process (user + system, less the ${(startup.cpuMs / 1000).toFixed(1)} s the same command takes on an empty file) | ${nodeUs.toFixed(1)} µs | |`,
      `| CPU per order, its PostgreSQL backend | ${backendUs > 0 ? `${backendUs.toFixed(1)} µs` : 'n/a'} | |`,
      `| Peak RSS of the \`certdesk import\` process (VmHWM) | ${Math.round(imported.peakRssKb / 1024)} MB | ≤ 300 MB |`,
      `| NDJSON generation (\`certdesk demo-data --ndjson\`) | ${generated.seconds.toFixed(1)} s, peak RSS ${Math.round(generated.peakRssKb / 1024)} MB | |`,
      `| Rows and order_counters checked after the import | ${rate(check.orders)} rows, counter drift ${check.counters} | exact |`,
      '',
      limit,
      '',
      `Machine: ${os.cpus().length} × ${os.cpus()[0]?.model.trim() ?? 'CPU'}, ${Math.round(os.totalmem() / 2 ** 30)} GiB RAM, Node ${process.version}, load average at the end ${os.loadavg().map((l) => l.toFixed(1)).join(' / ')}; the database server runs on the same machine. CLI from ${BUILT ? 'dist/' : 'src/ through tsx'}. Run on ${new Date().toISOString().slice(0, 10)}.`,
    ].join('\n');
    return { orders: check.orders, ordersPerSecond: report.ordersPerSecond, copyRowsPerSecond: copyRate, peakRssMb: imported.peakRssKb / 1024, counterDrift: check.counters, section: `## Import\n\n${table.trim()}\n` };
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const figures = await runImportBenchmark();
  process.stdout.write(`${figures.section}\n`);
  writeBenchmarkSection('## Import', figures.section);
}

// Run directly (`npm run bench:import`), not when bench/orders.ts imports the function.
if (RUN_DIRECTLY) {
  main().catch((err) => {
    process.stderr.write(`bench:import: ${(err as Error).message}\n`);
    process.exit(1);
  });
}
