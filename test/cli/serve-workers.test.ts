/**
 * `serve --workers N`, seen from outside: the built CLI (bin/certdesk; `npm test` builds it first, run
 * alone `npm run build` first).
 *
 * - On PostgreSQL (TEST_DATABASE_URL): two workers answer on one port; a worker killed with SIGKILL is
 *   replaced while the other keeps answering; SIGTERM to the primary drains every worker and exits 0.
 * - On the embedded database: `--workers 2` is clamped to one process with a one-line notice.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, describe, it } from 'node:test';
import pg from 'pg';

const BIN = fileURLToPath(new URL('../../bin/certdesk', import.meta.url));
/** Upper bounds on a loaded machine: generous, never waited out when things go right. */
const START_TIMEOUT_MS = 120_000;
const STOP_TIMEOUT_MS = 60_000;

const children = new Set<ChildProcess>();
after(() => {
  for (const c of children) c.kill('SIGKILL');
});

interface Served {
  child: ChildProcess;
  baseUrl: string;
  stdout: () => string;
  stderr: () => string;
}

/** Resolves when `predicate` holds, polling every 100 ms; rejects at the deadline. */
async function until<T>(what: string, deadlineMs: number, probe: () => T | undefined | Promise<T | undefined>): Promise<T> {
  const end = Date.now() + deadlineMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function startServe(args: string[], env: Record<string, string>): Promise<Served> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'certdesk-workers-'));
  const child = spawn(BIN, ['--data-dir', dataDir, 'serve', ...args], {
    env: { ...process.env, CERTDESK_ENV: 'test', LOG_LEVEL: 'silent', PORT: '0', HOST: '127.0.0.1', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.add(child);
  child.on('exit', () => {
    children.delete(child);
    rmSync(dataDir, { recursive: true, force: true });
  });
  let out = '';
  let err = '';
  child.stdout!.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr!.on('data', (c: Buffer) => (err += c.toString()));
  const baseUrl = await until('serving on', START_TIMEOUT_MS, () => {
    if (child.exitCode !== null) throw new Error(`serve exited with ${child.exitCode}: ${err}`);
    return /serving on (http:\/\/\S+)/.exec(out)?.[1];
  });
  return { child, baseUrl, stdout: () => out, stderr: () => err };
}

/** Pids of the live processes whose parent is `pid` (Linux /proc). */
function childPids(pid: number): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(fields[1]) === pid && fields[0] !== 'Z') pids.push(Number(entry));
    } catch {
      // exited while listing
    }
  }
  return pids.sort((a, b) => a - b);
}

/** GET /healthz on a fresh connection (not a pooled one that may lead to the killed worker); bounded. */
async function healthy(baseUrl: string): Promise<boolean> {
  const res = await fetch(`${baseUrl}/healthz`, { headers: { connection: 'close' }, signal: AbortSignal.timeout(START_TIMEOUT_MS) });
  await res.text();
  return res.status === 200;
}

async function stop(served: Served): Promise<number | null> {
  if (served.child.exitCode !== null) return served.child.exitCode;
  const exited = new Promise<number | null>((resolve) => served.child.once('exit', (code) => resolve(code)));
  served.child.kill('SIGTERM');
  const timer = setTimeout(() => served.child.kill('SIGKILL'), STOP_TIMEOUT_MS);
  const code = await exited;
  clearTimeout(timer);
  return code;
}

const adminUrl = process.env.TEST_DATABASE_URL;

describe('serve --workers on postgres', { skip: adminUrl ? false : 'TEST_DATABASE_URL is not set' }, () => {
  const name = `certdesk_t_${process.pid}_${randomBytes(4).toString('hex')}`;
  const admin = async (statement: string) => {
    const client = new pg.Client({ connectionString: adminUrl });
    await client.connect();
    try {
      await client.query(statement);
    } finally {
      await client.end();
    }
  };
  after(async () => {
    if (adminUrl) await admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  });

  it('replaces a killed worker while the other keeps answering, and drains every worker on SIGTERM', async () => {
    await admin(`CREATE DATABASE ${name}`);
    const url = new URL(adminUrl!);
    url.pathname = `/${name}`;
    const served = await startServe(['--workers', '2'], { DATABASE_URL: url.toString() });
    const primary = served.child.pid!;
    assert.match(served.stdout(), /\(.*2 workers\)/);
    const workers = await until('two workers', START_TIMEOUT_MS, () => {
      const pids = childPids(primary);
      return pids.length === 2 ? pids : undefined;
    });
    assert.equal(await healthy(served.baseUrl), true);

    // /metrics counts the whole cluster, whichever worker answers the scrape: every /healthz request
    // on a fresh connection (spread over both workers) shows in each of several scrapes.
    const healthzCount = async () => {
      const res = await fetch(`${served.baseUrl}/metrics`, { headers: { connection: 'close' } });
      const body = await res.text();
      assert.equal(res.status, 200, body);
      return Number(/certdesk_http_requests_total\{method="GET",route="\/healthz",status="200"\} (\d+)/.exec(body)?.[1] ?? 0);
    };
    const before = await healthzCount();
    for (let i = 0; i < 20; i++) assert.equal(await healthy(served.baseUrl), true);
    for (let i = 0; i < 4; i++) assert.equal(await healthzCount(), before + 20, `scrape ${i} sees all 20 requests`);

    const [victim, survivor] = workers as [number, number];
    process.kill(victim, 'SIGKILL');
    // Once the primary has seen the death (a connection handed to the victim just before it died is lost
    // with it), the survivor answers while the replacement starts: every request on a fresh connection.
    await until('the primary to see the death', START_TIMEOUT_MS, () => (/died \(SIGKILL\)/.test(served.stderr()) ? true : undefined));
    for (let i = 0; i < 10; i++) assert.equal(await healthy(served.baseUrl), true, `request ${i} after the kill`);
    const replaced = await until('a replacement worker', START_TIMEOUT_MS, () => {
      const pids = childPids(primary);
      return pids.length === 2 && !pids.includes(victim) && /worker \d+ listening/.test(served.stderr()) ? pids : undefined;
    });
    assert.ok(replaced.includes(survivor), 'the surviving worker was left alone');
    assert.match(served.stderr(), new RegExp(`worker ${victim} died \\(SIGKILL\\); starting a replacement`));
    for (let i = 0; i < 10; i++) assert.equal(await healthy(served.baseUrl), true, `request ${i} after the replacement`);

    assert.equal(await stop(served), 0);
    for (const pid of replaced) {
      assert.throws(() => process.kill(pid, 0), /ESRCH/, `worker ${pid} is gone after shutdown`);
    }
  });
});

describe('serve --workers on the embedded database', () => {
  it('serves with one process and says so in one line', async () => {
    const served = await startServe(['--workers', '2'], { DATABASE_URL: '' });
    try {
      assert.equal(childPids(served.child.pid!).length, 0, 'no worker processes');
      const notices = served.stderr().split('\n').filter((l) => l.includes('--workers'));
      assert.deepEqual(notices, ['--workers 2: the embedded database is single-process, serving with 1 worker (set DATABASE_URL to use more)']);
      assert.equal(await healthy(served.baseUrl), true);
    } finally {
      assert.equal(await stop(served), 0);
    }
  });
});
