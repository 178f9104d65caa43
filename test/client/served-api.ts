/**
 * The real application listening on a local port (standard fixture), behind a tiny HTTP proxy the test
 * controls: it counts requests and can answer instead of the server (a 429 with Retry-After), or drop a
 * connection before or after the server has acted. The TypeScript client talks to the proxy.
 *
 * @example
 * const served = await startServedApi(target);
 * served.proxy.fault = (req, n) => (n === 1 ? { status: 429, headers: { 'retry-after': '1' } } : 'pass');
 * await served.close();
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadConfig } from '../../src/config.js';
import type { DatabaseHandle } from '../../src/storage/database.js';
import { toOrderRow } from '../../src/domain/orders/order-document.js';
import { upsertOrders } from '../../src/domain/orders/order.repository.js';
import type { OrderInputT } from '../../src/domain/orders/order-input.schema.js';
import { buildTestApp } from '../helpers/app.js';
import type { DatabaseTarget } from '../helpers/database.js';
import { ACME, loadStandardFixture, temporaryObjectStorage, USERS } from '../helpers/fixtures.js';
import { freePort } from '../helpers/free-port.js';
import type { FastifyInstance } from 'fastify';

/** What the proxy does with one request: pass it on, answer itself, or drop the connection. */
export type FaultDecision =
  | 'pass'
  /** Close the connection without forwarding (the server never sees the request). */
  | 'drop-before'
  /** Forward, let the server answer, then close the connection without passing the answer on. */
  | 'drop-after'
  | { status: number; headers?: Record<string, string>; body?: unknown };

export interface ProxyRequest {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
}

export interface FaultProxy {
  url: string;
  /**
   * Decides per request; `n` counts requests to the same `METHOD path` (1-based) since this function
   * was set (setting it starts the counts again).
   */
  fault: (req: ProxyRequest, n: number) => FaultDecision;
  /** Every request that reached the proxy, in order. */
  log: ProxyRequest[];
  count(method: string, path: string): number;
}

async function startProxy(target: string): Promise<FaultProxy & { close(): Promise<void> }> {
  const counts = new Map<string, number>();
  let fault: FaultProxy['fault'] = () => 'pass';
  const proxy: FaultProxy & { close(): Promise<void> } = {
    url: '',
    get fault() {
      return fault;
    },
    set fault(decide) {
      fault = decide;
      counts.clear();
    },
    log: [],
    count: (method, path) => proxy.log.filter((r) => r.method === method && r.path === path).length,
    close: async () => {},
  };
  const server = http.createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0]!;
    const info = { method: req.method ?? 'GET', path, headers: req.headers };
    proxy.log.push(info);
    const key = `${info.method} ${path}`;
    const n = (counts.get(key) ?? 0) + 1;
    counts.set(key, n);
    const decision = proxy.fault(info, n);
    if (decision === 'drop-before') {
      req.resume();
      req.socket.destroy();
      return;
    }
    if (typeof decision === 'object') {
      req.resume();
      res.writeHead(decision.status, { 'content-type': 'application/json', ...decision.headers });
      res.end(JSON.stringify(decision.body ?? { detail: `injected ${decision.status}` }));
      return;
    }
    const upstream = http.request(new URL(req.url ?? '/', target), { method: req.method, headers: req.headers }, (answer) => {
      if (decision === 'drop-after') {
        answer.resume();
        answer.on('end', () => req.socket.destroy());
        return;
      }
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    upstream.on('error', () => req.socket.destroy());
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  proxy.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  proxy.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return proxy;
}

export interface ServedApi {
  app: FastifyInstance;
  database: DatabaseHandle;
  /** The server's own address. */
  serverUrl: string;
  proxy: FaultProxy;
  close(): Promise<void>;
}

/**
 * Starts the app on a free port with the standard fixture; `env` adds settings. Given a target it opens
 * (and on close closes) a database of its own; given an open database (describeOnEachDatabase's) it
 * leaves closing it to its opener.
 */
export async function startServedApi(source: DatabaseTarget | DatabaseHandle, env: Record<string, string> = {}): Promise<ServedApi> {
  const ownsDatabase = 'open' in source;
  const database = ownsDatabase ? await source.open() : source;
  const { dir, storage, remove } = temporaryObjectStorage();
  await loadStandardFixture(database, storage);
  const port = await freePort();
  const serverUrl = `http://127.0.0.1:${port}`;
  const config = loadConfig({
    ...env,
    CERTDESK_ENV: 'test',
    LOG_LEVEL: 'silent',
    PUBLIC_BASE_URL: serverUrl,
    ISSUER_URL: serverUrl,
    DATA_DIR: dir,
    OBJECT_STORAGE_DIR: dir,
  });
  const app = await buildTestApp({ config, database, storage });
  await app.listen({ port, host: '127.0.0.1' });
  const proxy = await startProxy(serverUrl);
  return {
    app,
    database,
    serverUrl,
    proxy,
    close: async () => {
      await proxy.close();
      await app.close();
      if (ownsDatabase) await database.close();
      remove();
    },
  };
}

/** Credentials of a fixture user's API client, for `new Certdesk(...)`. */
export function credentialsOf(name: keyof typeof USERS, baseUrl: string) {
  return { baseUrl, clientId: USERS[name].clientId, clientSecret: USERS[name].clientSecret };
}

/** Inserts `count` personal orders of Acme's administrator (through the orders repository, in batches). */
export async function seedManyOrders(database: DatabaseHandle, count: number): Promise<void> {
  const owner = USERS.admin;
  const rows = [];
  for (let i = 0; i < count; i++) {
    const input: OrderInputT = {
      order_id: `bulk-${String(i).padStart(6, '0')}`,
      username: owner.username,
      email: owner.email,
      order_state: 'In Progress',
      order_title: `bulk order ${i}`,
      asset_id: `asset-bulk-${i}`,
      asset_name: `bulk-${i}.png`,
      asset_last_modified_timestamp: String(1_767_225_600 + i),
      ordered_by: null,
      // Three orders share each second: the order_id tie-break is crossed at page boundaries.
      creation_time: new Date(Date.UTC(2025, 0, 1) + Math.floor(i / 3) * 1000).toISOString(),
      project_id: null,
    } as OrderInputT;
    rows.push(toOrderRow(ACME.id, input));
  }
  await upsertOrders(database.db, rows);
}
