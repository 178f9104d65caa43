/**
 * What every end-to-end suite of the operator's `certdesk` command shares: the real CLI spawned as a
 * child process against a scratch database of its own (a throw-away PostgreSQL database when
 * TEST_DATABASE_URL is set, else embedded PGlite in a temporary data directory), its captured output, and
 * the one-line error convention.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { openDatabase, type DatabaseHandle } from '../../src/storage/database.js';

const MAIN = fileURLToPath(new URL('../../src/cli/main.ts', import.meta.url));
const BIN = fileURLToPath(new URL('../../bin/certdesk', import.meta.url));
const ENTRY = `import(${JSON.stringify(MAIN)}).then((m) => m.main(['node', 'certdesk', ...process.argv.slice(1)]))`;
/**
 * `npm test` builds dist/ first, so there the real bin/certdesk runs (fast to start); run alone
 * (`node --import tsx --test this-file`), the CLI runs from src/ through tsx, so no build is needed.
 */
const CLI = process.env.npm_lifecycle_event === 'test' ? [BIN] : ['--import', 'tsx', '-e', ENTRY, '--'];

export type CliDatabase = 'pglite' | 'postgres';
/** Every suite runs on embedded PGlite always, and on PostgreSQL too when TEST_DATABASE_URL is set. */
export const CLI_DATABASES: readonly CliDatabase[] = process.env.TEST_DATABASE_URL ? ['pglite', 'postgres'] : ['pglite'];

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** The non-empty lines of a command's output. */
export const lines = (text: string): string[] => text.split('\n').filter((l) => l !== '');

/** A refused command: exit code 1 and exactly one line on stderr, matching `message`. */
export function expectOneLineError(run: CliRun, message: RegExp): void {
  assert.equal(run.code, 1, `exit code (stderr: ${run.stderr})`);
  assert.equal(lines(run.stderr).length, 1, `one stderr line, got: ${run.stderr}`);
  assert.match(run.stderr, message);
}

async function adminQuery(text: string): Promise<void> {
  const admin = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL });
  await admin.connect();
  try {
    await admin.query(text);
  } finally {
    await admin.end();
  }
}

/** A data directory and a database of one suite's own; `close()` drops and removes both. */
export class CliScratch {
  private constructor(
    /** The `--data-dir` every command gets (embedded PGlite lives in `pglite/` under it). */
    readonly dir: string,
    /** '' on PGlite. */
    readonly databaseUrl: string,
    private readonly database: string | null,
  ) {}

  static async open(prefix: string, database: CliDatabase): Promise<CliScratch> {
    const dir = mkdtempSync(path.join(os.tmpdir(), `certdesk-${prefix}-`));
    if (database === 'pglite' || !process.env.TEST_DATABASE_URL) return new CliScratch(dir, '', null);
    // Commands connect in milliseconds to PostgreSQL, where each embedded start takes seconds.
    const name = `certdesk_${prefix.replace(/\W/g, '_')}_${process.pid}_${randomBytes(4).toString('hex')}`;
    await adminQuery(`CREATE DATABASE ${name}`);
    const url = new URL(process.env.TEST_DATABASE_URL);
    url.pathname = `/${name}`;
    return new CliScratch(dir, url.toString(), name);
  }

  /** Runs `certdesk --data-dir DIR ...args` with `stdin` as its input. */
  run(args: string[], stdin = ''): Promise<CliRun> {
    return this.start(args, stdin).done;
  }

  /** Like `run`, with a handle to kill the command (one that must end by itself but may not). */
  start(args: string[], stdin = ''): { done: Promise<CliRun>; kill: () => void } {
    const child = spawn(process.execPath, [...CLI, '--data-dir', this.dir, ...args], {
      env: { ...process.env, DATABASE_URL: this.databaseUrl, CERTDESK_ENV: 'test', LOG_LEVEL: 'silent' },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    const done = new Promise<CliRun>((resolve, reject) => {
      child.on('error', reject);
      child.on('close', (code) => resolve({ code, stdout, stderr }));
    });
    child.stdin.end(stdin);
    return { done, kill: () => child.kill('SIGKILL') };
  }

  /** The database itself, between commands (the embedded one admits one process at a time). */
  async withDatabase<T>(fn: (handle: DatabaseHandle) => Promise<T>): Promise<T> {
    const handle = await openDatabase({
      databaseUrl: this.databaseUrl || null,
      pgliteDir: this.databaseUrl ? null : path.join(this.dir, 'pglite'),
      poolSize: 2,
      owner: 'command',
    });
    try {
      return await fn(handle);
    } finally {
      await handle.close();
    }
  }

  async close(): Promise<void> {
    if (this.database) await adminQuery(`DROP DATABASE IF EXISTS ${this.database} WITH (FORCE)`);
    rmSync(this.dir, { recursive: true, force: true });
  }
}
