/**
 * Export speed of `certdesk-client orders list --all --ndjson` (the built bin), beside `curl` walking the
 * same pages in the same run, against the application served in this process with N bulk orders.
 * Prints orders/s and the client's peak RSS (polled from /proc). The database: PGlite, or a fresh
 * PostgreSQL database next to TEST_DATABASE_URL when it is set.
 *
 * Run (after `npm run build`): `npx tsx bench/client-export.ts --orders 50000`
 */
import { execFile, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { databaseTargets } from '../test/helpers/database.js';
import { USERS } from '../test/helpers/fixtures.js';
import { seedManyOrders, startServedApi } from '../test/client/served-api.js';

const { values } = parseArgs({ options: { orders: { type: 'string', default: '50000' }, limit: { type: 'string', default: '1000' } } });
const ORDERS = Number(values.orders);
const LIMIT = Number(values.limit);
const BIN = path.resolve('clients/typescript/dist/cli/certdesk-client.js');

function rssKiB(pid: number): number {
  try {
    return Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0);
  } catch {
    return 0;
  }
}

async function runClient(env: NodeJS.ProcessEnv): Promise<{ lines: number; ms: number; peakMiB: number }> {
  const started = performance.now();
  const child = spawn(process.execPath, [BIN, 'orders', 'list', '--all', '--ndjson', '--limit', String(LIMIT)], { env, stdio: ['ignore', 'pipe', 'inherit'] });
  let lines = 0;
  let peak = 0;
  const poll = setInterval(() => (peak = Math.max(peak, rssKiB(child.pid!))), 20);
  child.stdout.on('data', (chunk: Buffer) => {
    for (const byte of chunk) if (byte === 10) lines++;
  });
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  clearInterval(poll);
  if (code !== 0) throw new Error(`certdesk-client exited ${code}`);
  return { lines, ms: performance.now() - started, peakMiB: peak / 1024 };
}

function curl(args: string[]): Promise<string> {
  return new Promise((resolve, reject) => execFile('curl', ['-sS', '--fail', ...args], { maxBuffer: 1 << 30 }, (e, out) => (e ? reject(e) : resolve(out))));
}

async function runCurl(baseUrl: string): Promise<{ orders: number; ms: number }> {
  const started = performance.now();
  const token = (JSON.parse(await curl(['-d', `grant_type=client_credentials&client_id=${USERS.admin.clientId}&client_secret=${USERS.admin.clientSecret}`, `${baseUrl}/oauth2/token`])) as { access_token: string }).access_token;
  let pageToken: string | null = null;
  let orders = 0;
  do {
    const url: string = `${baseUrl}/v1/orders?project_id=All%20Projects&limit=${LIMIT}${pageToken ? `&page_token=${pageToken}` : ''}`;
    const page = JSON.parse(await curl(['-H', `authorization: Bearer ${token}`, url])) as { orders: unknown[]; next_page_token: string | null };
    orders += page.orders.length;
    pageToken = page.next_page_token;
  } while (pageToken);
  return { orders, ms: performance.now() - started };
}

const target = databaseTargets().at(-1)!;
const served = await startServedApi(target);
try {
  await seedManyOrders(served.database, ORDERS);
  const env = { PATH: process.env.PATH ?? '', CERTDESK_BASE_URL: served.serverUrl, CERTDESK_CLIENT_ID: USERS.admin.clientId, CERTDESK_CLIENT_SECRET: USERS.admin.clientSecret };
  const client = await runClient(env);
  const baseline = await runCurl(served.serverUrl);
  const perSecond = (n: number, ms: number): number => Math.round((n / ms) * 1000);
  console.log(`database ${target.name}, ${client.lines} orders, pages of ${LIMIT}`);
  console.log(`certdesk-client orders list --all --ndjson: ${(client.ms / 1000).toFixed(2)} s, ${perSecond(client.lines, client.ms)} orders/s, peak RSS ${client.peakMiB.toFixed(0)} MiB`);
  console.log(`curl walking the same pages:              ${(baseline.ms / 1000).toFixed(2)} s, ${perSecond(baseline.orders, baseline.ms)} orders/s`);
} finally {
  await served.close();
}
