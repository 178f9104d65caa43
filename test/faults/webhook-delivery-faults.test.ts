/**
 * Fault tests of webhook deliveries with the real `certdesk serve` (dist/) and a real receiver
 * (test/webhooks/receiver.ts), orders created through the API:
 * - serve killed (SIGKILL) in the middle of a delivery burst, with requests in flight (the receiver holds
 *   them unanswered), then started again: every delivery arrives (those in flight again, after their
 *   job's lease ran out: at least once), none is lost; on PGlite and on PostgreSQL;
 * - the database stopped while deliveries are in flight (a private PostgreSQL cluster, test/faults/
 *   private-cluster.ts) and started again: serve keeps running, every delivery arrives, and no delivery
 *   is marked succeeded that the receiver did not get.
 * A killed worker's jobs wait for their lease (60 s) before another claim: the deadlines allow for it.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { openDatabase, type DatabaseHandle } from '../../src/storage/database.js';
import { migrate } from '../../src/storage/migrate.js';
import { LocalDirectoryStorage } from '../../src/storage/object-storage/index.js';
import { HostileClient, processTreeOf } from '../helpers/hostile-serve.js';
import { flatImage } from '../helpers/analysis-files.js';
import { loadStandardFixture } from '../helpers/fixtures.js';
import { startReceiver, type Receiver } from '../webhooks/receiver.js';
import { PrivateCluster, privateClusterAvailable } from './private-cluster.js';
import { request, ServedProcess } from './served-process.js';
import { createThrowawayDatabase } from '../helpers/database.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function waitFor(done: () => boolean | Promise<boolean>, what: string, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await done())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await sleep(50);
  }
}

/** A database of the test's own (PGlite in a directory, or a new PostgreSQL database on `serverUrl`), migrated, with the standard fixture. */
async function prepareDatabase(dir: string, serverUrl: string | null): Promise<{ env: Record<string, string>; open: () => Promise<DatabaseHandle>; drop: () => Promise<void> }> {
  let databaseUrl: string | null = null;
  let drop = async () => {};
  if (serverUrl) {
    const database = await createThrowawayDatabase(serverUrl, 'whf');
    databaseUrl = database.url;
    drop = database.drop;
  }
  const open = () => openDatabase({ databaseUrl, pgliteDir: databaseUrl ? null : path.join(dir, 'pglite') });
  const handle = await open();
  try {
    await migrate(handle);
    await loadStandardFixture(handle, new LocalDirectoryStorage(path.join(dir, 'objects')));
  } finally {
    await handle.close();
  }
  const env = {
    DATA_DIR: dir,
    OBJECT_STORAGE_DIR: path.join(dir, 'objects'),
    DATABASE_URL: databaseUrl ?? '',
    LOG_LEVEL: 'warn',
    MASTER_KEY: 'webhook-faults-master-key-0123456789abcdef',
    WEBHOOK_ALLOW_PRIVATE: 'true',
    WORKER_CONCURRENCY: '1',
  };
  return { env, open, drop };
}

async function createEndpoint(server: ServedProcess, client: HostileClient, url: string): Promise<void> {
  const res = await request(server.baseUrl, false, {
    method: 'POST',
    path: '/v1/webhook-endpoints',
    headers: { authorization: `Bearer ${client.bearer}`, 'content-type': 'application/json' },
    body: JSON.stringify({ url, events: ['order.created'] }),
  });
  assert.equal(res.status, 201, res.body);
}

/** (path, order id) of every request the receiver got, and how often. */
function arrivals(receiver: Receiver): Map<string, number> {
  const seen = new Map<string, number>();
  for (const r of receiver.received) {
    const key = `${r.path} ${(JSON.parse(r.body) as { data: { order_id: string } }).data.order_id}`;
    seen.set(key, (seen.get(key) ?? 0) + 1);
  }
  return seen;
}

const PATHS = ['/held?a', '/held?b'];
const expectedKeys = (orderIds: string[]) => orderIds.flatMap((id) => PATHS.map((p) => `${p} ${id}`));

const targets: Array<'pglite' | 'postgres'> = ['pglite', ...(process.env.TEST_DATABASE_URL ? (['postgres'] as const) : [])];

for (const target of targets) {
  describe(`webhook deliveries survive a killed serve (${target})`, { timeout: 420_000 }, () => {
    let dir: string;
    let db: Awaited<ReturnType<typeof prepareDatabase>>;
    let receiver: Receiver;
    const servers: ServedProcess[] = [];

    before(async () => {
      dir = mkdtempSync(path.join(os.tmpdir(), 'certdesk-whf-'));
      db = await prepareDatabase(dir, target === 'postgres' ? process.env.TEST_DATABASE_URL! : null);
      receiver = await startReceiver();
    });
    after(async () => {
      for (const s of servers) await s.stop();
      await receiver?.close();
      await db?.drop();
      if (dir) rmSync(dir, { recursive: true, force: true });
    });

    it('loses no delivery when serve is killed with requests in flight, and sends those again', async () => {
      servers.push(await ServedProcess.start(db.env));
      const first = servers[0]!;
      const client = await HostileClient.connect(first);
      for (const p of PATHS) await createEndpoint(first, client, receiver.url(p));
      const png = await flatImage('png', 32, 32);
      receiver.holding = true;
      const before = await Promise.all(Array.from({ length: 12 }, (_, i) => client.order(png, `burst-${i}.png`)));
      // Requests in flight at both endpoints (sent, unanswered): kill serve now.
      await waitFor(() => receiver.held() >= 2 * 2, 'deliveries in flight', 120_000);
      const inFlight = receiver.received.length;
      assert.ok(inFlight < expectedKeys(before).length, 'the burst was cut in the middle');
      // The whole process tree at once, as a lost machine: `serve` on PostgreSQL is a primary and its
      // workers, and a worker outliving its primary by a moment would still send (on new connections).
      const tree = processTreeOf(first.child.pid!);
      for (const pid of tree) process.kill(pid, 'SIGKILL');
      await first.waitForExit();
      await waitFor(() => tree.every((pid) => !existsSync(`/proc/${pid}/stat`) || readFileSync(`/proc/${pid}/stat`, 'utf8').includes(') Z ')), 'the killed tree gone', 30_000);
      receiver.release();

      // Every connection the receiver has seen until now is the killed tree's: nothing else sends yet. (Two
      // turns of the event loop first: connections the kernel completed before the kill are accepted in the
      // poll phase, which a setImmediate follows.)
      for (let turn = 0; turn < 2; turn++) await new Promise((resolve) => setImmediate(resolve));
      const secondStartedAt = performance.now();
      servers.push(await ServedProcess.start(db.env));
      const second = servers[1]!;
      const client2 = await HostileClient.connect(second);
      const afterRestart = await Promise.all(Array.from({ length: 4 }, (_, i) => client2.order(png, `after-${i}.png`)));
      const expected = expectedKeys([...before, ...afterRestart]);
      // The killed serve's claimed deliveries are taken over once PostgreSQL drops its session (PGlite: once
      // their lease, 10 s, runs out), then the new serve sends them.
      await waitFor(() => expected.every((k) => arrivals(receiver).has(k)), 'every delivery', 240_000);
      await second.stop();

      const seen = arrivals(receiver);
      assert.deepEqual(expected.filter((k) => !seen.has(k)), [], 'no delivery lost');
      // Only a request the killed serve sent (none was answered: the receiver held them) may have come twice.
      // They are told apart by their connections, all seen before the second serve started; a count taken
      // before the kill would miss what arrived until the processes were gone.
      const twice = [...seen.values()].filter((n) => n > 1).length;
      const sentByKilled = receiver.received.filter((r) => r.connectedAt < secondStartedAt).length;
      assert.ok(sentByKilled >= inFlight);
      assert.ok(twice <= sentByKilled, `${twice} duplicates, ${sentByKilled} requests sent by the killed serve`);
      const handle = await db.open();
      try {
        const states = await handle.db.selectFrom('webhook_deliveries').select('status').execute();
        assert.equal(states.length, expected.length);
        assert.ok(states.every((s) => s.status === 'succeeded'), JSON.stringify(states));
      } finally {
        await handle.close();
      }
    });
  });
}

describe('webhook deliveries through a database outage', { skip: !privateClusterAvailable() && 'no PostgreSQL binaries', timeout: 420_000 }, () => {
  let cluster: PrivateCluster;
  let dir: string;
  let db: Awaited<ReturnType<typeof prepareDatabase>>;
  let receiver: Receiver;
  let server: ServedProcess | undefined;

  before(async () => {
    cluster = await PrivateCluster.start();
    dir = mkdtempSync(path.join(os.tmpdir(), 'certdesk-whf-outage-'));
    db = await prepareDatabase(dir, cluster.url);
    receiver = await startReceiver();
  });
  after(async () => {
    await server?.stop();
    await receiver?.close();
    await cluster?.destroy();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('delivers everything after the database comes back, and marks nothing succeeded that did not arrive', async () => {
    server = await ServedProcess.start(db.env);
    const client = await HostileClient.connect(server);
    for (const p of PATHS) await createEndpoint(server, client, receiver.url(p));
    const png = await flatImage('png', 32, 32);
    receiver.holding = true;
    const orders = await Promise.all(Array.from({ length: 10 }, (_, i) => client.order(png, `outage-${i}.png`)));
    await waitFor(() => receiver.held() >= 2 * 2, 'deliveries in flight', 120_000);
    // The database goes away while requests are in flight; their answers then come and cannot be recorded.
    await cluster.stop('fast');
    receiver.release();
    await sleep(2000); // the outage lasts a while: the answers above arrive during it
    assert.ok(server.alive, 'serve keeps running through the outage');
    await cluster.startServer();

    const expected = expectedKeys(orders);
    await waitFor(() => expected.every((k) => arrivals(receiver).has(k)), 'every delivery', 240_000);
    const handle = await db.open();
    try {
      // Settled by serve (a resent delivery is recorded once its answer is): every row succeeded, and each
      // was received.
      await waitFor(async () => (await handle.db.selectFrom('webhook_deliveries').select('status').where('status', '<>', 'succeeded').execute()).length === 0, 'every delivery recorded', 120_000);
      const rows = await handle.db
        .selectFrom('webhook_deliveries as d')
        .innerJoin('webhook_endpoints as w', 'w.id', 'd.endpoint_id')
        .innerJoin('webhook_events as e', 'e.event_id', 'd.event_id')
        .select(['d.status', 'w.url', 'e.payload'])
        .execute();
      assert.equal(rows.length, expected.length);
      const seen = arrivals(receiver);
      for (const row of rows) {
        const key = `${new URL(row.url).pathname}${new URL(row.url).search} ${(row.payload as { data: { order_id: string } }).data.order_id}`;
        assert.ok(seen.has(key), `${key} is marked ${row.status} but never arrived`);
      }
    } finally {
      await handle.close();
    }
    assert.ok(server.alive);
  });
});
