/**
 * One owner per embedded data directory, seen from outside: the built CLI (bin/certdesk; `npm test`
 * builds it first, run alone `npm run build` first) against a temporary data directory.
 *
 * - A command run while `serve` runs writes into the live database (through the server's socket):
 *   the new client gets tokens at once and is still there after a restart.
 * - A second `serve` on the same directory refuses with one line.
 * - The lock of a server killed with SIGKILL is taken over by the next server.
 * - A command that finds the directory held by another command refuses with one line, exit code 1.
 *
 * Always embedded PGlite (DATABASE_URL is cleared): the lock is about the embedded database.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';

const BIN = fileURLToPath(new URL('../../bin/certdesk', import.meta.url));
const ORG = '0a0e0000-0000-4000-8000-000000000001';
const ENV = { ...process.env, DATABASE_URL: '', CERTDESK_ENV: 'test', LOG_LEVEL: 'silent', PORT: '0' };
/** Upper bounds: a PGlite start takes seconds on a busy machine, never a minute. */
const START_TIMEOUT_MS = 90_000;
const STOP_TIMEOUT_MS = 30_000;

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

const children = new Set<ChildProcess>();

function spawnCli(dataDir: string, args: string[]): ChildProcess {
  const child = spawn(BIN, ['--data-dir', dataDir, ...args], { env: ENV, stdio: ['pipe', 'pipe', 'pipe'] });
  children.add(child);
  child.on('exit', () => children.delete(child));
  return child;
}

function collect(child: ChildProcess, stdin?: string): Promise<Run> {
  return new Promise((resolve, reject) => {
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    if (stdin !== undefined) child.stdin!.end(stdin);
  });
}

function certdesk(dataDir: string, args: string[], stdin = ''): Promise<Run> {
  return collect(spawnCli(dataDir, args), stdin);
}

interface Server {
  pid: number;
  url: string;
  exited: Promise<Run>;
  stop(): Promise<Run>;
}

/** Starts `certdesk serve` and waits for its "serving on" line (or its exit). */
async function serve(dataDir: string): Promise<Server> {
  const child = spawnCli(dataDir, ['serve']);
  child.stdin!.end();
  const exited = collect(child);
  const url = await new Promise<string>((resolve, reject) => {
    let seen = '';
    const timer = setTimeout(() => reject(new Error(`serve did not start within ${START_TIMEOUT_MS} ms: ${seen}`)), START_TIMEOUT_MS);
    child.stdout!.on('data', (c: Buffer) => {
      seen += c.toString();
      const match = /serving on (http:\/\/\S+)/.exec(seen);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]!);
      }
    });
    void exited.then((run) => {
      clearTimeout(timer);
      reject(new Error(`serve exited (${run.code}): ${run.stderr}`));
    });
  });
  return {
    pid: child.pid!,
    url,
    exited,
    async stop() {
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), STOP_TIMEOUT_MS);
      try {
        return await exited;
      } finally {
        clearTimeout(timer);
      }
    },
  };
}

async function tokenStatus(url: string, clientId: string, secret: string): Promise<number> {
  const response = await fetch(`${url}/oauth2/token`, {
    method: 'POST',
    headers: { authorization: `Basic ${Buffer.from(`${clientId}:${secret}`).toString('base64')}`, 'content-type': 'application/x-www-form-urlencoded' },
    body: 'grant_type=client_credentials',
  });
  await response.arrayBuffer();
  return response.status;
}

const lines = (text: string) => text.split('\n').filter((l) => l !== '');
const lockOf = (dataDir: string) => JSON.parse(readFileSync(path.join(dataDir, 'pglite.lock'), 'utf8')) as { pid: number; role: string };

function expectOneLineRefusal(run: Run, message: RegExp): void {
  assert.equal(run.code, 1, `exit code (stdout: ${run.stdout}, stderr: ${run.stderr})`);
  assert.equal(lines(run.stderr).length, 1, `one stderr line, got: ${run.stderr}`);
  assert.match(run.stderr, message);
  assert.equal(run.stdout, '', 'nothing printed as if it had worked');
}

describe('embedded data directory: one owner (built CLI, PGlite)', { timeout: 600_000 }, () => {
  let dataDir: string;

  before(() => {
    dataDir = mkdtempSync(path.join(os.tmpdir(), 'certdesk-owner-'));
    writeFileSync(
      path.join(dataDir, 'seed.json'),
      JSON.stringify({ organizations: [{ id: ORG, name: 'Owner Test', users: [{ email: 'ada@owner.test', username: 'Ada', is_admin: true }] }] }),
    );
  });

  after(() => {
    for (const child of children) child.kill('SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('writes of commands run while serve runs go to the live database and survive a restart; a second serve refuses', async () => {
    const server = await serve(dataDir);
    let client: { client_id: string; client_secret: string };
    try {
      const seeded = await certdesk(dataDir, ['seed', path.join(dataDir, 'seed.json')]);
      assert.equal(seeded.code, 0, seeded.stderr);
      const created = await certdesk(dataDir, ['client', 'create', '--org', ORG, '--user-email', 'ada@owner.test', '--json']);
      assert.equal(created.code, 0, created.stderr);
      client = JSON.parse(created.stdout) as typeof client;
      assert.equal(await tokenStatus(server.url, client.client_id, client.client_secret), 200, 'the running server knows the new client');
      assert.equal(lockOf(dataDir).pid, server.pid, 'serve holds the lock');

      const second = await certdesk(dataDir, ['serve']);
      expectOneLineRefusal(second, new RegExp(`^certdesk: the embedded database .+ is already served by certdesk serve \\(pid ${server.pid}\\); stop it first`));
      assert.equal(await tokenStatus(server.url, client.client_id, client.client_secret), 200, 'the first server still serves');
    } finally {
      const stopped = await server.stop();
      assert.equal(stopped.code, 0, stopped.stderr);
    }
    assert.equal(existsSync(path.join(dataDir, 'pglite.lock')), false, 'a stopped server leaves no lock');
    assert.equal(existsSync(path.join(dataDir, 'pglite.socket')), false, 'nor its socket');

    const restarted = await serve(dataDir);
    try {
      assert.equal(await tokenStatus(restarted.url, client.client_id, client.client_secret), 200, 'the client survived the restart');
    } finally {
      await restarted.stop();
    }
  });

  it('takes over the lock of a server killed with SIGKILL', async () => {
    const killed = await serve(dataDir);
    process.kill(killed.pid, 'SIGKILL');
    await killed.exited;
    assert.equal(lockOf(dataDir).pid, killed.pid, 'the killed server left its lock behind');

    const next = await serve(dataDir);
    try {
      assert.equal(lockOf(dataDir).pid, next.pid, 'the new server took the lock over');
      const listed = await certdesk(dataDir, ['client', 'list', '--org', ORG]);
      assert.equal(listed.code, 0, listed.stderr);
      assert.match(listed.stdout, /ada@owner\.test/);
    } finally {
      await next.stop();
    }
  });

  it('a command finding the directory held by another command refuses in one line, exit code 1', async () => {
    // `import` reading from a pipe holds the directory until its input ends.
    const importer = spawnCli(dataDir, ['import', '--org', ORG, '-']);
    const imported = collect(importer);
    try {
      const deadline = Date.now() + START_TIMEOUT_MS;
      while (!(existsSync(path.join(dataDir, 'pglite.lock')) && lockOf(dataDir).pid === importer.pid)) {
        assert.ok(Date.now() < deadline, 'import took the lock');
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      const refused = await certdesk(dataDir, ['client', 'list', '--org', ORG]);
      expectOneLineRefusal(refused, new RegExp(`^certdesk: the embedded database .+ is in use by another certdesk command \\(pid ${importer.pid}\\); run this one when it has finished\\n$`));
      const serveRefused = await certdesk(dataDir, ['serve']);
      expectOneLineRefusal(serveRefused, /is in use by another certdesk command/);
    } finally {
      importer.stdin!.end();
    }
    const done = await imported;
    assert.equal(done.code, 0, done.stderr);
    assert.equal(existsSync(path.join(dataDir, 'pglite.lock')), false, 'the command released the directory');
  });
});
