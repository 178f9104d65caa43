/**
 * `certdesk serve --demo` in development, as a developer sees it in a terminal: the banner is one block
 * after listen, each request is one readable line (not two JSON objects), and secrets sent in headers or
 * the query string never reach the output.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';

const BIN = path.resolve('bin/certdesk');
// Generous: loading the demo data on a loaded 2-core machine has taken minutes.
const START_TIMEOUT_MS = 300_000;
const LINE_TIMEOUT_MS = 30_000;
const SECRET = 'S3cr3t-never-logged-0123456789';

describe('development logs', { timeout: START_TIMEOUT_MS + 120_000 }, () => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'certdesk-devlog-'));
  const child = spawn(BIN, ['--data-dir', dataDir, 'serve', '--demo'], {
    env: { ...process.env, DATABASE_URL: '', CERTDESK_ENV: 'development', LOG_LEVEL: 'info', PORT: '0', MASTER_KEY: '' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
  let url = '';

  /** Resolves once stdout matches, or fails at the deadline or when the server exits. */
  async function waitFor(pattern: RegExp, timeoutMs: number): Promise<RegExpExecArray> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const match = pattern.exec(stdout);
      if (match) return match;
      if (child.exitCode !== null) throw new Error(`serve exited (${child.exitCode}): ${stderr}`);
      if (Date.now() > deadline) throw new Error(`no ${pattern} within ${timeoutMs} ms in:\n${stdout}\n${stderr}`);
      await new Promise((resolve) => child.stdout.once('data', resolve).once('close', resolve));
    }
  }

  before(async () => {
    const timer = setTimeout(() => child.stdout.emit('data', Buffer.alloc(0)), START_TIMEOUT_MS + 1000);
    try {
      // The banner's last line is the closing row of "!".
      url = (await waitFor(/serving on (http:\/\/\S+)[\s\S]*Try the API:\n.*\n!{78}\n/, START_TIMEOUT_MS))[1]!;
    } finally {
      clearTimeout(timer);
    }
  });

  after(async () => {
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    await exited;
    clearTimeout(timer);
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('prints the banner as one block after the server listens', () => {
    const lines = stdout.split('\n');
    const first = lines.findIndex((l) => l.startsWith('certdesk serving on '));
    const last = lines.findIndex((l, i) => i > first + 1 && /^!{78}$/.test(l));
    assert.ok(first >= 0 && last > first, stdout);
    const banner = lines.slice(first, last + 1);
    assert.match(banner[1]!, /^!{78}$/, 'the demo warning follows the address at once');
    for (const line of banner) assert.doesNotMatch(line, /INFO|"level"|Server listening/, `a log line inside the banner:\n${banner.join('\n')}`);
    // Fastify's own "listening" lines come before the banner, never inside it.
    assert.ok(lines.slice(0, first).some((l) => /Server listening at/.test(l)), stdout);
  });

  it('prints the demo reviewer, who signs in with those credentials and finds the customers\' orders in /review', async () => {
    const line = stdout.split('\n').find((l) => l.includes('review as'));
    const m = /review as\s+(\S+)\s+password\s+(\S+)/.exec(line ?? '');
    assert.ok(m, `no reviewer line in the banner:\n${stdout}`);
    const [, email, password] = m;
    assert.equal(email, 'rita.reviewer@certifier.example');
    const cookies = new Map<string, string>();
    const keep = (res: Response) => {
      for (const c of res.headers.getSetCookie()) {
        const [pair] = c.split(';');
        const i = pair!.indexOf('=');
        cookies.set(pair!.slice(0, i), pair!.slice(i + 1));
      }
    };
    const cookie = () => [...cookies].map(([k, v]) => `${k}=${v}`).join('; ');
    const form = await fetch(`${url}/sign-in`);
    keep(form);
    const csrf = /name="_csrf" value="([^"]+)"/.exec(await form.text())![1]!;
    const signedIn = await fetch(`${url}/sign-in`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: cookie() },
      body: new URLSearchParams({ _csrf: csrf, email: email!, password: password! }),
    });
    keep(signedIn);
    assert.equal(signedIn.status, 303);
    const queue = await fetch(`${url}/review`, { headers: { cookie: cookie() } });
    assert.equal(queue.status, 200);
    const body = await queue.text();
    assert.match(body, /Acme Studio/);
    assert.match(body, /Northwind Pictures/);
    // This request's log line is written after the answer: let it arrive before the next test counts lines.
    await waitFor(/GET \/review 200 /, LINE_TIMEOUT_MS);
  });

  it('logs one readable line per request and no secret', async () => {
    const before = stdout.length;
    const health = await fetch(`${url}/healthz?code=${SECRET}`, { headers: { cookie: `sid=${SECRET}` } });
    assert.equal(health.status, 200);
    await health.arrayBuffer();
    const orders = await fetch(`${url}/v1/orders`, { headers: { authorization: `Bearer ${SECRET}` } });
    assert.equal(orders.status, 401);
    await orders.arrayBuffer();
    await waitFor(/GET \/v1\/orders 401 /, LINE_TIMEOUT_MS);
    const logged = stdout.slice(before).split('\n').filter(Boolean);
    assert.equal(logged.filter((l) => l.includes('GET /healthz 200 ')).length, 1, logged.join('\n'));
    assert.equal(logged.filter((l) => l.includes('GET /v1/orders 401 ')).length, 1, logged.join('\n'));
    assert.equal(logged.length, 2, `one line per request, nothing else:\n${logged.join('\n')}`);
    for (const line of logged) assert.doesNotMatch(line, /^\{/, 'not JSON in development');
    assert.ok(!stdout.includes(SECRET) && !stderr.includes(SECRET), 'a secret reached the output');
  });
});
