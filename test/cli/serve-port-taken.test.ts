/**
 * `serve` on a port another process holds: it must undo what it had started (database, services, signal
 * handlers) and exit non-zero with its one error line within seconds, having claimed no job, instead of
 * living on as a headless job worker. On PGlite and PostgreSQL (TEST_DATABASE_URL), and `serve --workers 2`
 * on PostgreSQL, whose primary stops once a worker fails before it listened.
 *
 * The single-process runs use the CLI as `cli-harness.ts` runs it (bin/certdesk under `npm test`, src/ through
 * tsx alone, so no safety-net exit helps there); the cluster run needs the built bin/certdesk (node:cluster
 * forks the script it was started with): `npm run build` first when running this file alone.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import net from 'node:net';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { CLEANUP_JOB } from '../../src/domain/background/job-kinds.js';
import { insertJob } from '../../src/domain/background/jobs.repository.js';
import { CLI_DATABASES, CliScratch, lines, type CliRun } from './cli-harness.js';

const BIN = fileURLToPath(new URL('../../bin/certdesk', import.meta.url));
/**
 * "Within seconds" on an idle machine (a PGlite start and the migration check take most of it); the bound
 * is generous for a loaded 2-core machine. Before the fix the process never exited at all.
 */
const EXIT_DEADLINE_MS = 180_000;

/** A listening socket on a free loopback port, held for the whole file. */
async function holdPort(): Promise<{ port: number; close: () => Promise<void> }> {
  const server = net.createServer((socket) => socket.destroy());
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as net.AddressInfo;
  return { port, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

/** Races `run` against the deadline; a process still alive then is killed and the test fails. */
async function withinDeadline(run: Promise<CliRun>, kill: () => void): Promise<CliRun & { ms: number }> {
  const started = Date.now();
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      kill();
      reject(new Error(`serve still running ${EXIT_DEADLINE_MS} ms after it was started on a taken port`));
    }, EXIT_DEADLINE_MS);
  });
  try {
    const result = await Promise.race([run, deadline]);
    return { ...result, ms: Date.now() - started };
  } finally {
    clearTimeout(timer);
  }
}

/** Runs the built bin/certdesk (for node:cluster) with the scratch's data directory and database. */
function runBin(scratch: CliScratch, args: string[]): { done: Promise<CliRun>; kill: () => void } {
  const child = spawn(BIN, ['--data-dir', scratch.dir, ...args], {
    env: { ...process.env, DATABASE_URL: scratch.databaseUrl, CERTDESK_ENV: 'test', LOG_LEVEL: 'silent' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  const done = new Promise<CliRun>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
  // The primary; its workers stop when it is gone (they drain on 'disconnect').
  return { done, kill: () => child.kill('SIGKILL') };
}

interface JobRow {
  id: number;
  state: string;
  attempts: number;
  locked_by: string | null;
}

async function allJobs(scratch: CliScratch): Promise<JobRow[]> {
  return scratch.withDatabase(async ({ db }) =>
    db.selectFrom('jobs').select(['id', 'state', 'attempts', 'locked_by']).orderBy('id').execute() as Promise<JobRow[]>,
  );
}

/** Migrates the scratch database and queues one due job that any running worker would claim at once. */
async function queueOneJob(scratch: CliScratch): Promise<number> {
  const migrated = await scratch.run(['migrate']);
  assert.equal(migrated.code, 0, migrated.stderr);
  const id = await scratch.withDatabase(({ db }) => insertJob(db, { kind: CLEANUP_JOB, payload: {}, maxAttempts: 1, singletonKey: null }));
  assert.ok(id !== null);
  return id;
}

function assertNothingClaimed(jobs: JobRow[], queued: number): void {
  assert.deepEqual(jobs, [{ id: queued, state: 'queued', attempts: 0, locked_by: null }], 'the queued job was left alone and no job was added or claimed');
}

let port: { port: number; close: () => Promise<void> };
before(async () => {
  port = await holdPort();
});
after(async () => {
  await port.close();
});

for (const database of CLI_DATABASES) {
  describe(`serve on a taken port (${database})`, () => {
    let scratch: CliScratch;
    before(async () => {
      scratch = await CliScratch.open('port-taken', database);
    });
    after(async () => {
      await scratch.close();
    });

    it('undoes its start, exits 1 with one line and claims no job', async () => {
      const queued = await queueOneJob(scratch);
      // One process (on PostgreSQL `serve` would fork one worker per CPU: the cluster has its own case below).
      const { done, kill } = scratch.start(['serve', '--workers', '1', '--port', String(port.port), '--host', '127.0.0.1']);
      const result = await withinDeadline(done, kill);
      assert.equal(result.code, 1, `exit code (stderr: ${result.stderr})`);
      assert.equal(lines(result.stderr).length, 1, `one stderr line, got: ${result.stderr}`);
      assert.match(result.stderr, /^certdesk: listen EADDRINUSE: address already in use 127\.0\.0\.1:\d+\n$/);
      assert.doesNotMatch(result.stdout, /serving on/);
      assertNothingClaimed(await allJobs(scratch), queued);
    });
  });
}

describe('serve --workers 2 on a taken port (postgres)', { skip: CLI_DATABASES.includes('postgres') ? false : 'TEST_DATABASE_URL is not set' }, () => {
  let scratch: CliScratch;
  before(async () => {
    scratch = await CliScratch.open('port-taken-cluster', 'postgres');
  });
  after(async () => {
    await scratch.close();
  });

  it('stops every worker, exits 1 and claims no job', async () => {
    const queued = await queueOneJob(scratch);
    const { done, kill } = runBin(scratch, ['serve', '--workers', '2', '--port', String(port.port), '--host', '127.0.0.1']);
    const result = await withinDeadline(done, kill);
    assert.equal(result.code, 1, `exit code (stderr: ${result.stderr})`);
    // A worker's listen goes through the primary, which reports the failed bind to it.
    assert.match(result.stderr, /certdesk: bind EADDRINUSE 127\.0\.0\.1:\d+/);
    assert.match(result.stderr, /worker \d+ stopped before it listened \(exit code 1\); stopping/);
    assert.doesNotMatch(result.stdout, /serving on/);
    assertNothingClaimed(await allJobs(scratch), queued);
  });
});
