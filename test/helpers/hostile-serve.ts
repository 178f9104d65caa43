/**
 * A real `certdesk serve` (dist/) analysing hostile files, watched from outside: the hostile-file fault
 * suite (test/faults/hostile-files.test.ts) and `npm run bench:hostile` share it.
 *
 * - `startHostileServe(target)`: a database of its own (PGlite in a temporary data directory, or a
 *   throw-away PostgreSQL database), the standard fixture loaded, serve started on it; `stop()` stops it
 *   and removes what it created.
 * - `HostileClient`: uploads a file (POST /v1/uploads, presigned PUT) and orders its analysis.
 * - `watchServe`: samples the RSS of serve's process tree (threads are inside it) and times
 *   `GET /v1/orders` on its own connection, until stopped.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { SCOPES } from '../../src/contract/schemas.js';
import { openDatabase, type DatabaseHandle } from '../../src/storage/database.js';
import { migrate } from '../../src/storage/migrate.js';
import { LocalDirectoryStorage } from '../../src/storage/object-storage/index.js';
import { basic, request, ServedProcess } from '../faults/served-process.js';
import { ACME, loadStandardFixture, USERS } from './fixtures.js';
import { createThrowawayDatabase } from './database.js';

export interface HostileServe {
  server: ServedProcess;
  /** Opens the database serve used (PGlite: only once serve has stopped, it owns the directory). */
  openDatabase(): Promise<DatabaseHandle>;
  stop(): Promise<void>;
}

/** `pid` and every process below it, from /proc (serve --workers forks its workers). */
export function processTreeOf(pid: number): number[] {
  const parents = new Map<number, number[]>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      parents.set(ppid, [...(parents.get(ppid) ?? []), Number(entry)]);
    } catch {
      // exited while listing
    }
  }
  const out: number[] = [];
  const walk = (p: number) => {
    out.push(p);
    for (const child of parents.get(p) ?? []) walk(child);
  };
  walk(pid);
  return out;
}

/** Resident memory of a process tree in MB (VmRSS summed; a process that exits meanwhile counts 0). */
export function treeRssMb(pid: number): number {
  let kb = 0;
  for (const p of processTreeOf(pid)) {
    try {
      kb += Number(/^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${p}/status`, 'utf8'))?.[1] ?? 0);
    } catch {
      // gone
    }
  }
  return kb / 1024;
}

/**
 * Proportional memory of a process tree in MB (Pss of /proc/<pid>/smaps_rollup summed): a page shared by
 * n processes counts 1/n in each, so the node binary and libraries the cluster workers share count once.
 * RSS summed over a tree counts them in every process.
 */
export function treePssMb(pid: number): number {
  let kb = 0;
  for (const p of processTreeOf(pid)) {
    try {
      kb += Number(/^Pss:\s+(\d+) kB/m.exec(readFileSync(`/proc/${p}/smaps_rollup`, 'utf8'))?.[1] ?? 0);
    } catch {
      // gone
    }
  }
  return kb / 1024;
}

/** `adminUrl`: the PostgreSQL server a throw-away database is made on (default TEST_DATABASE_URL). */
export async function startHostileServe(target: 'pglite' | 'postgres', env: Record<string, string> = {}, args: string[] = [], adminUrl = process.env.TEST_DATABASE_URL): Promise<HostileServe> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'certdesk-hostile-'));
  const objects = path.join(dir, 'objects');
  let databaseUrl: string | null = null;
  let dropDatabase = async () => {};
  if (target === 'postgres') {
    if (!adminUrl) throw new Error('TEST_DATABASE_URL is not set');
    const database = await createThrowawayDatabase(adminUrl, 'h');
    databaseUrl = database.url;
    dropDatabase = database.drop;
  }
  const open = () => openDatabase({ databaseUrl, pgliteDir: databaseUrl ? null : path.join(dir, 'pglite') });
  try {
    const handle = await open();
    try {
      await migrate(handle);
      await loadStandardFixture(handle, new LocalDirectoryStorage(objects));
    } finally {
      await handle.close();
    }
    const server = await ServedProcess.start(
      {
        DATA_DIR: dir,
        OBJECT_STORAGE_DIR: objects,
        DATABASE_URL: databaseUrl ?? '',
        LOG_LEVEL: 'warn',
        MASTER_KEY: 'hostile-files-master-key-0123456789abcdef',
        WORKER_CONCURRENCY: '2',
        ...env,
      },
      args,
    );
    return {
      server,
      openDatabase: open,
      async stop() {
        await server.stop();
        await dropDatabase();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  } catch (err) {
    await dropDatabase();
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
}

export interface OrderView {
  order_id: string;
  order_state: string;
  analysis_list?: Array<{ analysis_type: string; analysis_passed: boolean }>;
}

/** The fixture's admin (its client has the write scope), through the API as a client application would use it. */
export class HostileClient {
  private constructor(
    private readonly base: URL,
    private readonly token: string,
  ) {}

  static async connect(server: ServedProcess): Promise<HostileClient> {
    const editor = USERS.admin; // the fixture's client with the write scope
    const res = await request(server.baseUrl, false, {
      method: 'POST',
      path: '/oauth2/token',
      headers: { authorization: basic(editor.clientId, editor.clientSecret), 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'client_credentials', scope: `${SCOPES.read} ${SCOPES.write}` }).toString(),
    });
    if (res.status !== 200) throw new Error(`token: ${res.status} ${res.body}`);
    return new HostileClient(server.baseUrl, (JSON.parse(res.body) as { access_token: string }).access_token);
  }

  private get auth() {
    return { authorization: `Bearer ${this.token}` };
  }

  /** The access token (admin, read and write scopes), for requests this class does not make. */
  get bearer(): string {
    return this.token;
  }

  /** Uploads `bytes` and creates an order of them in project Zeta; returns the order id. */
  async order(bytes: Buffer, fileName: string): Promise<string> {
    const ticket = await request(this.base, false, {
      method: 'POST',
      path: '/v1/uploads',
      headers: { ...this.auth, 'content-type': 'application/json' },
      body: JSON.stringify({ file_name: fileName, content_type: 'application/octet-stream', size: bytes.length }),
    });
    if (ticket.status !== 201) throw new Error(`upload ticket for ${fileName}: ${ticket.status} ${ticket.body}`);
    const { upload_url, upload_headers, upload_id } = JSON.parse(ticket.body) as { upload_url: string; upload_headers: Record<string, string>; upload_id: string };
    const target = new URL(upload_url);
    const put = await putBytes(this.base, `${target.pathname}${target.search}`, upload_headers, bytes);
    if (put !== 200) throw new Error(`PUT of ${fileName}: ${put}`);
    const created = await request(this.base, false, {
      method: 'POST',
      path: '/v1/orders',
      headers: { ...this.auth, 'content-type': 'application/json' },
      body: JSON.stringify({ upload_id, project_id: ACME.projects.zeta.id, order_title: fileName }),
    });
    if (created.status !== 201) throw new Error(`order of ${fileName}: ${created.status} ${created.body}`);
    return (JSON.parse(created.body) as { order_id: string }).order_id;
  }

  async get(orderId: string): Promise<OrderView> {
    const res = await request(this.base, false, { path: `/v1/orders/${orderId}`, headers: this.auth });
    if (res.status !== 200) throw new Error(`GET order ${orderId}: ${res.status} ${res.body}`);
    return JSON.parse(res.body) as OrderView;
  }

  /** One `GET /v1/orders` (first page of project Zeta, where the orders go); resolves with its status and duration in ms. */
  async timeListing(): Promise<{ status: number; ms: number }> {
    const started = performance.now();
    const res = await request(this.base, false, { path: `/v1/orders?project_id=${ACME.projects.zeta.id}`, headers: this.auth, timeoutMs: 60_000 });
    return { status: res.status, ms: performance.now() - started };
  }
}

async function putBytes(base: URL, pathAndQuery: string, headers: Record<string, string>, bytes: Buffer): Promise<number> {
  const http = await import('node:http');
  return new Promise((resolve, reject) => {
    const req = http.request({ host: base.hostname, port: base.port, method: 'PUT', path: pathAndQuery, headers: { ...headers, 'content-length': String(bytes.length) } }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end(bytes);
  });
}

export interface Watch {
  /** Stops sampling; resolves with what was seen. */
  stop(): Promise<{ peakRssMb: number; peakPssMb: number; baselineRssMb: number; listings: number[]; failedListings: number }>;
}

/** Samples serve's tree RSS every `everyMs` and times back-to-back `GET /v1/orders` until stopped. */
export function watchServe(server: ServedProcess, client: HostileClient, everyMs = 50, pauseMs = 20): Watch {
  const pid = server.child.pid!;
  const baselineRssMb = treeRssMb(pid);
  let peakRssMb = baselineRssMb;
  let peakPssMb = treePssMb(pid);
  const sampler = setInterval(() => {
    peakRssMb = Math.max(peakRssMb, treeRssMb(pid));
    peakPssMb = Math.max(peakPssMb, treePssMb(pid));
  }, everyMs);
  const listings: number[] = [];
  let failedListings = 0;
  let running = true;
  const lister = (async () => {
    while (running) {
      const { status, ms } = await client.timeListing();
      if (status === 200) listings.push(ms);
      else failedListings++;
      if (pauseMs > 0) await new Promise((r) => setTimeout(r, pauseMs)); // a client polling, not a load test
    }
  })();
  return {
    async stop() {
      running = false;
      clearInterval(sampler);
      await lister;
      peakRssMb = Math.max(peakRssMb, treeRssMb(pid));
      peakPssMb = Math.max(peakPssMb, treePssMb(pid));
      return { peakRssMb, peakPssMb, baselineRssMb, listings, failedListings };
    },
  };
}
