/**
 * Webhook delivery benchmark (`npm run bench:webhooks`; issue 20): not a test.
 *
 * On a throw-away PostgreSQL database (next to BENCH_DATABASE_URL, default
 * postgres://postgres@127.0.0.1:5432/postgres; dropped at the end) with the standard fixture and
 * BENCH_ORDERS (default 10,000) orders of Acme in `In Progress` (inserted in bulk: a bulk insert writes no
 * order event, so it emits no webhook), it starts the real `certdesk serve` (dist/; `npm run build` first) in
 * a process of its own, creates BENCH_ENDPOINTS (default 3) endpoints subscribed to `order.state_changed`
 * through the API, all pointing at a local receiver (a Node http server in this process that verifies
 * every request with the `standardwebhooks` package and records its `webhook-id` and arrival time).
 *
 * Then it moves every order to `Action Required`: BENCH_MOVES=sql (default) writes each batch's states
 * with one UPDATE and its `order_events` rows with one INSERT (what the domain service writes; the event
 * rows fire the outbox trigger in the same transaction), BENCH_MOVES=service calls `changeOrderIn` per
 * move (the API's path: about 20 ms of CPU each, so on a loaded machine it offers fewer moves than the goal needs); BENCH_BATCH moves per transaction, paced at BENCH_MOVES_PER_SECOND (default 400, so
 * 1,200 deliveries per second are offered), and records each move's commit time. When half of the moves
 * have committed, serve is restarted (BENCH_RESTART: `rolling-kill`, the default: a new serve is started,
 * and once it listens the old one is killed with SIGKILL, so its claimed deliveries wait for their lease
 * to run out, or for PostgreSQL to drop its session, and are sent again; `rolling-term`: the old one gets SIGTERM and finishes what it holds;
 * `stop-start`: SIGTERM, then a new serve is started, deliveries wait meanwhile).
 *
 * It waits until every (endpoint, event) pair arrived (at most BENCH_DEADLINE_S, default 600 s), then
 * keeps listening for BENCH_SETTLE_S (default 15 s: longer than a delivery's lease, 10 s, so re-sent
 * deliveries of the killed serve are counted too) and reports deliveries per second, the commit → receiver latency (p50,
 * p99, max; of each pair's first arrival), events lost and duplicates. Goal: ≥ 1,000 deliveries/s,
 * p99 ≤ 1 s, 0 lost. Writes docs/benchmarks.md under "## Webhooks".
 */
import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { sql } from 'kysely';
import { Webhook } from 'standardwebhooks';
import { SCOPES } from '../src/contract/schemas.js';
import { insertOrderBatch } from '../src/domain/order-import/order-import.repository.js';
import { toOrderRow } from '../src/domain/orders/order-document.js';
import { actorColumns } from '../src/domain/history/order-event.js';
import { ORDER_EVENT_COLUMNS, orderEventValues } from '../src/domain/history/order-history.repository.js';
import { changeOrderIn } from '../src/domain/orders/order-lifecycle.service.js';
import { systemClock } from '../src/domain/time/clock.js';
import { openDatabase, type DatabaseHandle } from '../src/storage/database.js';
import { migrate } from '../src/storage/migrate.js';
import { LocalDirectoryStorage } from '../src/storage/object-storage/index.js';
import { basic, request, ServedProcess } from '../test/faults/served-process.js';
import { createThrowawayDatabase } from '../test/helpers/database.js';
import { ACME, loadStandardFixture, USERS } from '../test/helpers/fixtures.js';
import { writeBenchmarkSection } from './benchmarks-doc.js';
import { cpuMsOf, postgresBackendsOf, processTree } from './server-process.js';

const ADMIN_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const ORDERS = Number(process.env.BENCH_ORDERS ?? 10_000);
const ENDPOINTS = Number(process.env.BENCH_ENDPOINTS ?? 3);
const MOVES_PER_SECOND = Number(process.env.BENCH_MOVES_PER_SECOND ?? 400);
const BATCH = Number(process.env.BENCH_BATCH ?? 20);
const PRODUCERS = Number(process.env.BENCH_PRODUCERS ?? 4);
/** `sql` (default): each batch's moves as one UPDATE of the states and one INSERT of their order events; `service`: changeOrderIn per move. */
const MOVE_PATH = (process.env.BENCH_MOVES ?? 'sql') as 'sql' | 'service';
const RESTART = (process.env.BENCH_RESTART ?? 'rolling-kill') as 'rolling-kill' | 'rolling-term' | 'stop-start' | 'none';
const DEADLINE_S = Number(process.env.BENCH_DEADLINE_S ?? 600);
const SETTLE_S = Number(process.env.BENCH_SETTLE_S ?? 15);
/** Extra environment of serve (e.g. BENCH_SERVE_ENV='WORKER_CONCURRENCY=8'). */
const SERVE_ENV = Object.fromEntries((process.env.BENCH_SERVE_ENV ?? '').split(/\s+/).filter(Boolean).map((kv) => kv.split('=', 2) as [string, string]));
/** Extra arguments of serve (e.g. BENCH_SERVE_ARGS='--workers 2'). */
const SERVE_ARGS = (process.env.BENCH_SERVE_ARGS ?? '').split(/\s+/).filter(Boolean);
const INITIAL_LOAD = os.loadavg();

/** Milliseconds since the epoch with sub-millisecond resolution (commits and arrivals use the same clock). */
const now = () => performance.timeOrigin + performance.now();
const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? NaN;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Arrival {
  key: string;
  at: number;
}

/** The local receiver: verifies each request with its endpoint's secret, records it, answers 204. */
async function startReceiver(): Promise<{ port: number; secrets: Map<string, Webhook>; arrivals: Arrival[]; rejected: () => number; close: () => Promise<void> }> {
  const secrets = new Map<string, Webhook>();
  const arrivals: Arrival[] = [];
  let rejected = 0;
  const server = http.createServer({ keepAliveTimeout: 60_000 }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const at = now();
      const endpoint = (req.url ?? '/').slice(1);
      const verifier = secrets.get(endpoint);
      try {
        if (!verifier) throw new Error('unknown endpoint');
        verifier.verify(Buffer.concat(chunks).toString('utf8'), req.headers as Record<string, string>);
      } catch {
        rejected++;
        res.writeHead(400).end();
        return;
      }
      arrivals.push({ key: `${endpoint} ${String(req.headers['webhook-id'])}`, at });
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    secrets,
    arrivals,
    rejected: () => rejected,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

async function adminToken(base: URL): Promise<string> {
  const admin = USERS.admin;
  const res = await request(base, false, {
    method: 'POST',
    path: '/oauth2/token',
    headers: { authorization: basic(admin.clientId, admin.clientSecret), 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'client_credentials', scope: `${SCOPES.read} ${SCOPES.write}` }).toString(),
  });
  if (res.status !== 200) throw new Error(`token: ${res.status} ${res.body}`);
  return (JSON.parse(res.body) as { access_token: string }).access_token;
}

async function main(): Promise<void> {
  const database = await createThrowawayDatabase(ADMIN_URL, 'wh');
  const databaseUrl = database.url;
  const dir = mkdtempSync(path.join(os.tmpdir(), 'certdesk-bench-wh-'));
  const servers: ServedProcess[] = [];
  let receiver: Awaited<ReturnType<typeof startReceiver>> | null = null;
  let handle: DatabaseHandle | null = null;
  try {
    handle = await openDatabase({ databaseUrl, pgliteDir: null });
    await migrate(handle);
    await loadStandardFixture(handle, new LocalDirectoryStorage(path.join(dir, 'objects')));
    const ids: string[] = [];
    const created = new Date();
    for (let start = 0; start < ORDERS; start += 1000) {
      const rows = [];
      for (let i = start; i < Math.min(ORDERS, start + 1000); i++) {
        const orderId = `bench-wh-${i}`;
        ids.push(orderId);
        rows.push(
          toOrderRow(ACME.id, {
            order_id: orderId,
            username: 'bench',
            email: USERS.admin.email,
            order_state: 'In Progress',
            order_title: `Webhook bench ${i}`,
            asset_id: orderId,
            asset_name: `artwork-${i}.png`,
            asset_last_modified_timestamp: String(Math.floor(created.getTime() / 1000)),
            ordered_by: null,
            creation_time: created.toISOString(),
            project_id: null,
          }),
        );
      }
      await insertOrderBatch(handle.db, rows);
    }

    receiver = await startReceiver();
    const serveEnv = {
      DATABASE_URL: databaseUrl,
      DATA_DIR: dir,
      OBJECT_STORAGE_DIR: path.join(dir, 'objects'),
      LOG_LEVEL: 'warn',
      MASTER_KEY: 'webhook-bench-master-key-0123456789abcdef',
      WEBHOOK_ALLOW_PRIVATE: 'true',
      PGAPPNAME: 'certdesk-bench-webhooks',
      ...SERVE_ENV,
    };
    servers.push(await ServedProcess.start(serveEnv, SERVE_ARGS));
    const token = await adminToken(servers[0]!.baseUrl);
    for (let i = 1; i <= ENDPOINTS; i++) {
      const res = await request(servers[0]!.baseUrl, false, {
        method: 'POST',
        path: '/v1/webhook-endpoints',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ url: `http://127.0.0.1:${receiver.port}/e${i}`, events: ['order.state_changed'], description: `bench receiver ${i}` }),
      });
      if (res.status !== 201) throw new Error(`endpoint ${i}: ${res.status} ${res.body}`);
      receiver.secrets.set(`e${i}`, new Webhook((JSON.parse(res.body) as { secret: string }).secret));
    }

    // The moves, paced; each order's commit time.
    const committedAt = new Map<string, number>();
    const actor = { kind: 'system', component: 'bench' } as const;
    let restartNote = 'none';
    let restart: Promise<void> = Promise.resolve();
    const doRestart = async () => {
      const old = servers.at(-1)!;
      const t0 = now();
      if (RESTART === 'stop-start') {
        await old.stop();
        servers.push(await ServedProcess.start(serveEnv, SERVE_ARGS));
        restartNote = `SIGTERM, then a new serve (no serve for ${((now() - t0) / 1000).toFixed(1)} s)`;
        return;
      }
      servers.push(await ServedProcess.start(serveEnv, SERVE_ARGS));
      const started = now();
      if (RESTART === 'rolling-kill') old.child.kill('SIGKILL');
      else old.child.kill('SIGTERM');
      await old.waitForExit();
      restartNote = `${RESTART === 'rolling-kill' ? 'SIGKILL' : 'SIGTERM'} of the running serve once a new one listened (start took ${((started - t0) / 1000).toFixed(1)} s)`;
    };
    // CPU time of serve (each process; a killed one keeps its last sample) and of its PostgreSQL backends,
    // sampled every 250 ms: CPU per delivery is the figure a loaded machine does not distort much.
    const cpu = new Map<string, number>();
    const sampleCpu = async () => {
      for (const s of servers) if (s.alive) for (const pid of processTree(s.child.pid!)) cpu.set(`serve ${pid}`, Math.max(cpu.get(`serve ${pid}`) ?? 0, cpuMsOf(pid)));
      for (const pid of await postgresBackendsOf(databaseUrl, 'certdesk-bench-webhooks').catch(() => [])) cpu.set(`pg ${pid}`, Math.max(cpu.get(`pg ${pid}`) ?? 0, cpuMsOf(pid)));
    };
    await sampleCpu();
    const cpuAtStart = new Map(cpu);
    const sampler = setInterval(() => void sampleCpu(), 250);
    const t0 = now();
    const intervalMs = (1000 * BATCH) / MOVES_PER_SECOND;
    // Up to BENCH_PRODUCERS transactions at once (one connection each), so the offered rate is not bound
    // by one connection's round trips.
    const inFlight = new Set<Promise<void>>();
    const db = handle.db;
    for (let b = 0; b * BATCH < ids.length; b++) {
      const due = t0 + b * intervalMs;
      if (due > now()) await sleep(due - now());
      while (inFlight.size >= PRODUCERS) await Promise.race(inFlight);
      const batch = ids.slice(b * BATCH, (b + 1) * BATCH);
      const move = db
        .transaction()
        .execute(async (trx) => {
          if (MOVE_PATH === 'service') {
            for (const id of batch) await changeOrderIn(trx, systemClock, id, actor, { to: 'Action Required', reason: 'webhook benchmark' });
            return;
          }
          // The same two writes as changeOrderIn (the state, and the `order_events` row the outbox trigger
          // sees), as one statement each for the whole batch.
          await sql`UPDATE orders SET order_state = 'Action Required', updated_at = now() WHERE order_id = ANY(${`{${batch.join(',')}}`}::text[]) AND order_state = 'In Progress'`.execute(trx);
          const at = new Date();
          const rows = batch.map(
            (id) =>
              sql`(${id}::text, ${orderEventValues({ order_id: id, organization_id: ACME.id, type: 'state_changed', from_state: 'In Progress', to_state: 'Action Required', ...actorColumns(actor), note: 'webhook benchmark', changes: null, occurred_at: at })})`,
          );
          await sql`INSERT INTO order_events (${ORDER_EVENT_COLUMNS}) VALUES ${sql.join(rows)}`.execute(trx);
        })
        .then(() => {
          const at = now();
          for (const id of batch) committedAt.set(id, at);
        });
      const tracked = move.finally(() => inFlight.delete(tracked));
      inFlight.add(tracked);
      if (RESTART !== 'none' && (b + 1) * BATCH >= ids.length / 2 && b * BATCH < ids.length / 2) restart = doRestart();
    }
    await Promise.all(inFlight);
    const movesSeconds = (now() - t0) / 1000;
    await restart;

    // Which order each event is: read from the outbox (the receiver only keeps the webhook-id).
    const events = await handle.db.selectFrom('webhook_events').select(['event_id', 'payload']).execute();
    const orderOfEvent = new Map(events.map((e) => [e.event_id, (e.payload as { data: { order_id: string } }).data.order_id]));
    const expected = ORDERS * ENDPOINTS;
    const firstArrival = new Map<string, number>();
    const deadline = now() + DEADLINE_S * 1000;
    let seen = 0;
    const absorb = () => {
      for (; seen < receiver!.arrivals.length; seen++) {
        const a = receiver!.arrivals[seen]!;
        if (!firstArrival.has(a.key)) firstArrival.set(a.key, a.at);
      }
    };
    while ((absorb(), firstArrival.size) < expected && now() < deadline) await sleep(100);
    const allArrivedAt = Math.max(...firstArrival.values());
    clearInterval(sampler);
    await sampleCpu();
    const cpuOf = (prefix: string) => [...cpu].filter(([k]) => k.startsWith(prefix)).reduce((n, [k, v]) => n + v - (cpuAtStart.get(k) ?? 0), 0);
    const serveCpuMs = cpuOf('serve ');
    const pgCpuMs = cpuOf('pg ');
    await sleep(SETTLE_S * 1000);
    absorb();

    const latencies: number[] = [];
    for (const [key, at] of firstArrival) {
      const orderId = orderOfEvent.get(key.split(' ')[1]!);
      const committed = orderId ? committedAt.get(orderId) : undefined;
      if (committed !== undefined) latencies.push(at - committed);
    }
    latencies.sort((a, b) => a - b);
    const lost = expected - firstArrival.size;
    const duplicates = receiver.arrivals.length - firstArrival.size;
    const seconds = (allArrivedAt - t0) / 1000;
    const rate = firstArrival.size / seconds;
    const states = await handle.db.selectFrom('webhook_deliveries').select(['status']).select((eb) => eb.fn.countAll<string>().as('n')).groupBy('status').execute();
    const p50 = percentile(latencies, 50);
    const p99 = percentile(latencies, 99);
    const load = os.loadavg().map((l) => l.toFixed(2)).join(' / ');
    const serveSettings = [...Object.entries(SERVE_ENV).map(([k, v]) => `${k}=${v}`), ...SERVE_ARGS].join(' ') || 'its defaults';
    const section = [
      '## Webhooks',
      '',
      `\`npm run bench:webhooks\` (bench/webhooks.ts), ${new Date().toISOString()}: ${os.cpus().length} CPUs (${os.cpus()[0]?.model.trim()}), Node ${process.version}, PostgreSQL 127.0.0.1. ` +
        `Load average (1 / 5 / 15 min) at the start ${INITIAL_LOAD.map((l) => l.toFixed(2)).join(' / ')}, at the end ${load}: the machine is shared with other builds and tests while this runs, so the figures are indicative.`,
      '',
      `The real \`certdesk serve\` (dist/, ${serveSettings}) on a throw-away PostgreSQL database; ${ORDERS.toLocaleString('en')} orders moved \`In Progress\` → \`Action Required\` (${MOVE_PATH === 'sql' ? 'each batch as one UPDATE of the states and one INSERT of their \`order_events\` rows: the writes of the domain service, which fire the outbox trigger' : 'the domain service, \`changeOrderIn\`, per move'}; ${BATCH} moves per transaction, up to ${PRODUCERS} transactions at once, paced at ${MOVES_PER_SECOND} moves/s), ` +
        `${ENDPOINTS} endpoints subscribed to \`order.state_changed\`, all on a local receiver (Node http, in the benchmark process) that verifies every request with the \`standardwebhooks\` package. ` +
        `Latency: from the commit of the move's transaction to the arrival of the delivery's first copy. Serve restarted when half of the moves had committed: ${restartNote}. ` +
        `After the last delivery arrived the receiver kept listening ${SETTLE_S} s (longer than a delivery's lease) to count duplicates.`,
      '',
      '| Measure | Value |',
      '|---|---|',
      `| Moves | ${ORDERS.toLocaleString('en')} committed in ${movesSeconds.toFixed(1)} s (${(ORDERS / movesSeconds).toFixed(0)} moves/s offered, ${((ORDERS * ENDPOINTS) / movesSeconds).toFixed(0)} deliveries/s) |`,
      `| Deliveries | ${firstArrival.size.toLocaleString('en')} of ${expected.toLocaleString('en')} arrived within ${seconds.toFixed(1)} s of the first move: **${rate.toFixed(0)} deliveries/s** |`,
      `| Commit → receiver | p50 **${p50.toFixed(0)} ms**, p99 **${p99.toFixed(0)} ms**, max ${(latencies.at(-1) ?? NaN).toFixed(0)} ms |`,
      `| Lost | **${lost}** |`,
      `| Duplicates (same endpoint and webhook-id received again) | **${duplicates}** |`,
      `| CPU per delivery (start of the moves to the last arrival) | serve ${(serveCpuMs / firstArrival.size).toFixed(2)} ms, its PostgreSQL backends ${(pgCpuMs / firstArrival.size).toFixed(2)} ms (the moves' own backends and the trigger excluded): one core of each would deliver about ${Math.round(1000 / Math.max(serveCpuMs / firstArrival.size, pgCpuMs / firstArrival.size))}/s |`,
      `| Requests the receiver refused (signature) | ${receiver.rejected()} |`,
      `| Deliveries in the database at the end | ${states.map((s) => `${s.n} ${s.status}`).join(', ')} |`,
      '',
      '| Goal | Result |',
      '|---|---|',
      `| ≥ 1,000 deliveries/s (${rate.toFixed(0)}) | ${rate >= 1000 ? 'met' : '**not met**'} |`,
      `| p99 commit → receiver ≤ 1 s (${p99.toFixed(0)} ms) | ${p99 <= 1000 ? 'met' : '**not met**'} |`,
      `| 0 events lost (${lost}), duplicates counted (${duplicates}) | ${lost === 0 ? 'met' : '**not met**'} |`,
      '',
    ].join('\n');
    process.stdout.write(`${section}\n`);
    if (process.env.BENCH_WRITE_DOC !== 'false') writeBenchmarkSection('## Webhooks', section);
  } finally {
    for (const s of servers) await s.stop();
    await receiver?.close();
    await handle?.close();
    await database.drop();
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
