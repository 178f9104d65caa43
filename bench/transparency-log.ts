/**
 * The issue-27 benchmark (`npm run bench:log`): not a test. Prints every goal met or not, from one run, and
 * writes the figures to docs/benchmarks.md ("## Transparency log").
 *
 * On PostgreSQL (DATABASE_URL, default postgres://postgres@127.0.0.1:5432/certdesk_bench_tlog, recreated):
 *   (1) sequencing: --entries (default 40,000) certificates are written with their log entries waiting, then
 *       the sequencer (the service's own, in this process, on a local object storage directory) integrates,
 *       signs and publishes all of them; entries per second over the whole drain (goal ≥ 2,000/s);
 *   (2) decision to signed checkpoint: `certdesk serve` runs (its sequencer leads) while this process
 *       certifies --rate (default 100) certificates a second for --duration seconds (default 30), each in a
 *       transaction of its own as a decision does (order, certificate, log entry); /log/checkpoint is polled
 *       every 10 ms, and each certificate's latency is from its commit to the first published checkpoint
 *       whose size includes its index (goal p99 ≤ 2 s);
 *   (3) tiles: wrk (64 connections, one thread) asks the serve and an nginx serving the same object
 *       storage directory from disk for random full hash tiles and entry bundles of (1), in the same run
 *       (goal: certdesk ≥ 0.5 × nginx's requests per second).
 * Needs the Debian packages `wrk` and `nginx` (apt-get install -y wrk nginx). Everything listens on
 * 127.0.0.1 and stops by itself. Flags: --entries, --rate, --duration, --tile-seconds (default 5), --tile-rounds
 * (default 5, alternating certdesk and nginx, medians). Quick run: `npm run bench:log -- --entries 10000 --duration 10`.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { sql } from 'kysely';
import pg from 'pg';
import { insertSyntheticCertificates } from '../src/domain/certificates/synthetic-certificates.js';
import { loadSeed } from '../src/domain/seed/seed.js';
import { systemClock } from '../src/domain/time/clock.js';
import { openTransparencyLog } from '../src/domain/transparency-log/index.js';
import { ensureSigningKey, loadKeyRing } from '../src/oauth/keys/signing-keys.js';
import { openDatabase, type DatabaseHandle } from '../src/storage/database.js';
import { migrate } from '../src/storage/migrate.js';
import { LocalDirectoryStorage } from '../src/storage/object-storage/index.js';
import { writeBenchmarkSection } from './benchmarks-doc.js';
import { processTree, cpuMsOf, servingUrl, stopChild } from './server-process.js';
import { runWrk, type WrkResult } from './wrk.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const { values: FLAGS } = parseArgs({ options: { entries: { type: 'string' }, rate: { type: 'string' }, duration: { type: 'string' }, 'tile-seconds': { type: 'string' }, 'tile-rounds': { type: 'string' } } });
const num = (v: string | undefined, fallback: number) => (v === undefined ? fallback : Math.max(1, Math.floor(Number(v.replace(/[_,]/g, '')))));
const ENTRIES = num(FLAGS.entries, 40_000);
const RATE = num(FLAGS.rate, 100);
const DURATION = num(FLAGS.duration, 30);
const TILE_SECONDS = num(FLAGS['tile-seconds'], 5);
const TILE_ROUNDS = num(FLAGS['tile-rounds'], 5);
const DATABASE_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/certdesk_bench_tlog';
const BASE_URL = 'https://bench.certdesk.test';
const ORG = 'b1000000-0000-4000-8000-000000000027';
const OWNER = 'owner@tlog.bench';
const GOAL_ENTRIES_PER_SECOND = 2000;
const GOAL_P99_MS = 2000;
const GOAL_TILE_RATIO = 0.5;
const CONNECTIONS = 64;
const INITIAL_LOAD = os.loadavg();
const N = (n: number) => Math.round(n).toLocaleString('en-US');
const log = (line: string) => process.stdout.write(`${line}\n`);

async function recreateDatabase(): Promise<DatabaseHandle> {
  const url = new URL(DATABASE_URL);
  const name = url.pathname.slice(1);
  if (!/^[a-z0-9_]+$/.test(name)) throw new Error(`database name ${name} is not a plain identifier`);
  const adminUrl = new URL(DATABASE_URL);
  adminUrl.pathname = '/postgres';
  const admin = new pg.Client({ connectionString: adminUrl.toString() });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const handle = await openDatabase({ databaseUrl: DATABASE_URL, pgliteDir: null, poolSize: 32 });
  await migrate(handle);
  return handle;
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

function wrk(baseUrl: string, prefix: string, tiles: number, seconds: number): Promise<WrkResult> {
  return runWrk({ url: baseUrl, connections: CONNECTIONS, seconds, script: path.join(ROOT, 'bench/wrk-log-tiles.lua'), scriptArgs: [prefix, String(tiles)] });
}

async function freePort(): Promise<number> {
  const net = await import('node:net');
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** nginx serving `objectsDir` from disk on 127.0.0.1 (a configuration and pid file of its own). */
async function startNginx(objectsDir: string): Promise<{ baseUrl: string; stop: () => void }> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'certdesk-bench-nginx-'));
  const port = await freePort();
  const conf = path.join(dir, 'nginx.conf');
  writeFileSync(
    conf,
    `user root;
worker_processes auto;
pid ${dir}/nginx.pid;
error_log ${dir}/error.log;
events { worker_connections 1024; }
http {
  access_log off;
  sendfile on;
  tcp_nopush on;
  keepalive_requests 100000;
  default_type application/octet-stream;
  client_body_temp_path ${dir}/body; proxy_temp_path ${dir}/proxy; fastcgi_temp_path ${dir}/fastcgi; uwsgi_temp_path ${dir}/uwsgi; scgi_temp_path ${dir}/scgi;
  server {
    listen 127.0.0.1:${port};
    location /log/ { root ${objectsDir}; add_header Cache-Control "public, max-age=31536000, immutable"; add_header Access-Control-Allow-Origin "*"; }
  }
}
`,
  );
  const started = spawnSync('nginx', ['-c', conf, '-p', dir], { encoding: 'utf8' });
  if (started.status !== 0) throw new Error(`nginx could not start (apt-get install -y nginx): ${started.stderr}${started.error?.message ?? ''}`);
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    stop: () => {
      spawnSync('nginx', ['-c', conf, '-p', dir, '-s', 'stop']);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

async function main(): Promise<void> {
  if (spawnSync('wrk', ['--version']).error || spawnSync('nginx', ['-v']).error) throw new Error('needs wrk and nginx: apt-get install -y wrk nginx');
  log(`load average at start: ${INITIAL_LOAD.map((l) => l.toFixed(2)).join(' ')} (${os.availableParallelism()} CPUs, shared with other work)`);
  const objectsDir = mkdtempSync(path.join(os.tmpdir(), 'certdesk-bench-tlog-objects-'));
  const storage = new LocalDirectoryStorage(objectsDir);
  const db = await recreateDatabase();
  await loadSeed(db.db, storage, { organizations: [{ id: ORG, name: 'Log Benchmark', users: [{ email: OWNER, username: 'Owner', is_admin: true }] }] } as never);
  await ensureSigningKey(db.db, null);
  const ring = await loadKeyRing(db.db, { masterKey: null, accessTokenTtlSeconds: 3600 });
  const deps = { clock: systemClock, signingKey: () => ring.signing, issuerUrl: BASE_URL, publicBaseUrl: BASE_URL };

  // (1) Sequencing: a backlog of ENTRIES drained by the sequencer.
  log(`(1) writing ${N(ENTRIES)} certificates with their waiting log entries…`);
  await insertSyntheticCertificates(db.db, deps, { organizationId: ORG, organizationName: 'Log Benchmark', ownerEmail: OWNER, count: ENTRIES, orderIdPrefix: 'ord_seq_' });
  await db.pgPool!.query('ANALYZE');
  const tlog = openTransparencyLog({ db: db.db, storage, masterKey: null, publicBaseUrl: BASE_URL, sequencerId: 'bench/sequencing' });
  const cpuBefore = cpuMsOf(process.pid);
  const started = performance.now();
  let rounds = 0;
  for (;;) {
    const round = await tlog.sequencer.runRound();
    rounds++;
    if (round.integrated === 0 && round.published === null) break;
  }
  const seconds = (performance.now() - started) / 1000;
  const sequencingCpuMs = cpuMsOf(process.pid) - cpuBefore;
  await tlog.sequencer.stop(); // gives the lease up for the serve
  const state = (await sql<{ tree_size: number; published_size: number }>`SELECT tree_size, published_size FROM transparency_log_state`.execute(db.db)).rows[0]!;
  if (state.published_size !== ENTRIES) throw new Error(`sequenced ${state.tree_size}, published ${state.published_size}, expected ${ENTRIES}`);
  const entriesPerSecond = ENTRIES / seconds;
  log(`    ${N(ENTRIES)} entries sequenced, tiled, signed and published in ${seconds.toFixed(2)} s: ${N(entriesPerSecond)} entries/s (${rounds} rounds; this process's CPU ${(sequencingCpuMs / ENTRIES).toFixed(3)} ms an entry), goal ≥ ${N(GOAL_ENTRIES_PER_SECOND)}/s: ${entriesPerSecond >= GOAL_ENTRIES_PER_SECOND ? 'met' : 'NOT met'}`);

  // (2) Decision to signed checkpoint while certifying at RATE/s, with the real serve sequencing.
  const child = spawn(process.execPath, [path.join(ROOT, 'bin/certdesk'), 'serve'], {
    cwd: ROOT,
    env: { ...process.env, CERTDESK_ENV: process.env.CERTDESK_ENV ?? 'test', DATABASE_URL, OBJECT_STORAGE_DIR: objectsDir, DATA_DIR: objectsDir, HOST: '127.0.0.1', PORT: '0', PUBLIC_BASE_URL: BASE_URL, LOG_LEVEL: 'warn', WORKER_CONCURRENCY: '1' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let nginx: { baseUrl: string; stop: () => void } | null = null;
  try {
    const baseUrl = await servingUrl(child);
    log(`(2) certifying ${RATE}/s for ${DURATION} s against ${baseUrl} (certdesk serve, ${processTree(child.pid!).length - 1 || 1} worker(s)), /log/checkpoint polled every 10 ms…`);
    const sightings: Array<{ at: number; size: number }> = [];
    let polling = true;
    const poller = (async () => {
      let last = -1;
      while (polling) {
        try {
          const res = await fetch(`${baseUrl}/log/checkpoint`);
          const text = await res.text();
          const size = res.status === 200 ? Number(text.split('\n')[1]) : -1;
          if (size > last) {
            sightings.push({ at: performance.now(), size });
            last = size;
          }
        } catch {
          // the serve is busy or restarting: the next poll
        }
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    })();
    const commits = new Map<string, number>();
    const total = RATE * DURATION;
    const t0 = performance.now();
    const inFlight = new Set<Promise<void>>();
    for (let i = 0; i < total; i++) {
      const due = t0 + (i * 1000) / RATE;
      const wait = due - performance.now();
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
      // At most as many decisions at once as the pool has connections (a loaded machine slows each one).
      while (inFlight.size >= 28) await Promise.race(inFlight);
      const p = insertSyntheticCertificates(db.db, deps, { organizationId: ORG, organizationName: 'Log Benchmark', ownerEmail: OWNER, count: 1, orderIdPrefix: `ord_rate_${i}_` }).then(([id]) => {
        commits.set(id!, performance.now());
      });
      inFlight.add(p);
      // Leaves the set either way; a failure is thrown by the Promise.race/all that awaits it (then the
      // serve is stopped by the finally below).
      p.then(
        () => inFlight.delete(p),
        () => inFlight.delete(p),
      );
    }
    await Promise.all(inFlight);
    const issuedSeconds = (performance.now() - t0) / 1000;
    const wanted = ENTRIES + total;
    const deadline = performance.now() + 60_000;
    while ((sightings.at(-1)?.size ?? 0) < wanted && performance.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
    polling = false;
    await poller;
    const indexes = await sql<{ certificate_id: string; log_index: number }>`
      SELECT certificate_id::text AS certificate_id, log_index FROM transparency_log_entries WHERE kind = 'issued' AND log_index >= ${ENTRIES}`.execute(db.db);
    const latencies: number[] = [];
    for (const row of indexes.rows) {
      const committed = commits.get(row.certificate_id);
      const seen = sightings.find((s) => s.size > row.log_index);
      if (committed !== undefined && seen) latencies.push(Math.max(0, seen.at - committed));
    }
    latencies.sort((a, b) => a - b);
    const missing = total - latencies.length;
    const p50 = percentile(latencies, 50);
    const p99 = percentile(latencies, 99);
    const max = latencies.at(-1) ?? NaN;
    log(`    ${N(total)} certificates in ${issuedSeconds.toFixed(1)} s (${(total / issuedSeconds).toFixed(1)}/s); commit → published signed checkpoint: p50 ${p50.toFixed(0)} ms, p99 ${p99.toFixed(0)} ms, max ${max.toFixed(0)} ms${missing ? `, ${missing} never seen` : ''}; goal p99 ≤ ${GOAL_P99_MS} ms: ${p99 <= GOAL_P99_MS && missing === 0 ? 'met' : 'NOT met'}`);

    // (3) Tiles: certdesk and nginx on the same files, same run.
    const fullTiles = Math.floor(ENTRIES / 256);
    nginx = await startNginx(objectsDir);
    const check = await fetch(`${nginx.baseUrl}/log/tile/0/000`);
    if (check.status !== 200 || (await check.arrayBuffer()).byteLength !== 8192) throw new Error(`nginx does not serve the tiles (${check.status})`);
    log(`(3) random full tiles and bundles (${N(fullTiles)} of each), ${CONNECTIONS} connections, ${TILE_ROUNDS} alternating rounds of ${TILE_SECONDS} s, warm-up first…`);
    await wrk(baseUrl, '/log/', fullTiles, 3);
    await wrk(nginx.baseUrl, '/log/', fullTiles, 3);
    // Alternating rounds, medians: the machine is shared, and its load moves within seconds.
    const rate = (r: WrkResult) => r.requests / (r.duration_us / 1e6);
    const oursRounds: WrkResult[] = [];
    const theirsRounds: WrkResult[] = [];
    for (let round = 0; round < TILE_ROUNDS; round++) {
      oursRounds.push(await wrk(baseUrl, '/log/', fullTiles, TILE_SECONDS));
      theirsRounds.push(await wrk(nginx.baseUrl, '/log/', fullTiles, TILE_SECONDS));
      log(`    round ${round + 1}: certdesk ${N(rate(oursRounds.at(-1)!))} req/s, nginx ${N(rate(theirsRounds.at(-1)!))} req/s`);
    }
    const median = (rs: WrkResult[]) => [...rs].sort((a, b) => rate(a) - rate(b))[Math.floor(rs.length / 2)]!;
    const ours = { ...median(oursRounds), errors: oursRounds.reduce((n, r) => n + r.errors, 0) };
    const theirs = { ...median(theirsRounds), errors: theirsRounds.reduce((n, r) => n + r.errors, 0) };
    const ourRate = rate(ours);
    const theirRate = rate(theirs);
    const ratio = ourRate / theirRate;
    log(`    certdesk ${N(ourRate)} req/s (p50 ${(ours.p50_us / 1000).toFixed(1)} ms, p99 ${(ours.p99_us / 1000).toFixed(1)} ms, ${ours.errors} errors); nginx ${N(theirRate)} req/s (p50 ${(theirs.p50_us / 1000).toFixed(1)} ms, p99 ${(theirs.p99_us / 1000).toFixed(1)} ms, ${theirs.errors} errors); ratio ${ratio.toFixed(2)}, goal ≥ ${GOAL_TILE_RATIO}: ${ratio >= GOAL_TILE_RATIO && ours.errors === 0 ? 'met' : 'NOT met'}`);
    const load = os.loadavg();
    log(`load average at end: ${load.map((l) => l.toFixed(2)).join(' ')}`);

    const date = new Date().toISOString().slice(0, 16).replace('T', ' ');
    writeBenchmarkSection(
      '## Transparency log',
      [
        '## Transparency log',
        '',
        `\`npm run bench:log\` (bench/transparency-log.ts), ${date} UTC, PostgreSQL on this machine (${os.availableParallelism()} CPUs, shared: load average ${INITIAL_LOAD[0]!.toFixed(2)} at the start, ${load[0]!.toFixed(2)} at the end, other engineers' builds and tests running).`,
        '',
        '| Goal (issue 27) | Measured | |',
        '|---|---|---|',
        `| sequencing ≥ ${N(GOAL_ENTRIES_PER_SECOND)} entries/s sustained | ${N(entriesPerSecond)} entries/s (${N(ENTRIES)} waiting entries integrated, tiled, signed and published in ${seconds.toFixed(1)} s, ${rounds} rounds) | ${entriesPerSecond >= GOAL_ENTRIES_PER_SECOND ? 'met' : 'not met'} |`,
        `| decision → signed checkpoint p99 ≤ ${GOAL_P99_MS} ms at ${RATE} certificates/s | p50 ${p50.toFixed(0)} ms, p99 ${p99.toFixed(0)} ms, max ${max.toFixed(0)} ms over ${N(latencies.length)} certificates in ${DURATION} s${missing ? ` (${missing} never seen)` : ''} | ${p99 <= GOAL_P99_MS && missing === 0 ? 'met' : 'not met'} |`,
        `| tiles ≥ ${GOAL_TILE_RATIO} × nginx from disk, same run | medians of ${TILE_ROUNDS} alternating ${TILE_SECONDS}-s rounds: certdesk ${N(ourRate)} req/s (p99 ${(ours.p99_us / 1000).toFixed(1)} ms), nginx ${N(theirRate)} req/s (p99 ${(theirs.p99_us / 1000).toFixed(1)} ms): ${ratio.toFixed(2)} × (rounds: certdesk ${oursRounds.map((r) => N(rate(r))).join(', ')}; nginx ${theirsRounds.map((r) => N(rate(r))).join(', ')}) | ${ratio >= GOAL_TILE_RATIO && ours.errors === 0 ? 'met' : 'not met'} |`,
        '',
        `Sequencing is the service's own sequencer (src/domain/transparency-log/sequencer.ts) in the benchmark process, on a local object storage directory: each round takes up to 4,096 waiting entries in one transaction (indexes, audit paths, the level-1+ hashes, a signed checkpoint), then writes the tiles, bundles and checkpoint. The latency is from the commit of each certificate's transaction (order, certificate and log entry, as a \`Certify\` decision) to the first published checkpoint (\`/log/checkpoint\`, polled every 10 ms) whose size includes its entry, with \`certdesk serve\` (${processTree(child.pid!).length - 1 || 1} workers, one of them leading the sequencing) running. Tiles: wrk with ${CONNECTIONS} connections on one thread, random full level-0 tiles and entry bundles, against the serve (tiles kept in memory after their first read, answered before Fastify) and against nginx 1.22 (Debian, \`worker_processes auto\`, sendfile) serving the same object storage directory.`,
      ].join('\n'),
    );
  } finally {
    nginx?.stop();
    await stopChild(child, 10_000);
    await db.close();
    rmSync(objectsDir, { recursive: true, force: true });
  }
}

await main();
