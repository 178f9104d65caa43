/**
 * `certdesk reviewer grant|revoke|list` end to end: the real CLI (through tsx, or bin/certdesk under
 * `npm test`) against a throw-away PostgreSQL database (TEST_DATABASE_URL) or embedded PGlite in a
 * temporary data directory.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';

const MAIN = fileURLToPath(new URL('../../src/cli/main.ts', import.meta.url));
const BIN = fileURLToPath(new URL('../../bin/certdesk', import.meta.url));
const ENTRY = `import(${JSON.stringify(MAIN)}).then((m) => m.main(['node', 'certdesk', ...process.argv.slice(1)]))`;
const CLI = process.env.npm_lifecycle_event === 'test' ? [BIN] : ['--import', 'tsx', '-e', ENTRY, '--'];
const SEED = fileURLToPath(new URL('../../docs/examples/seed-small.json', import.meta.url));

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
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

describe(`certdesk reviewer (end to end, ${process.env.TEST_DATABASE_URL ? 'postgres' : 'pglite'})`, () => {
  let dir: string;
  let databaseUrl = '';
  let database: string | null = null;

  const certdesk = (args: string[]): Promise<Run> =>
    new Promise((resolve, reject) => {
      const child = spawn(process.execPath, [...CLI, '--data-dir', dir, ...args], {
        env: { ...process.env, DATABASE_URL: databaseUrl, CERTDESK_ENV: 'test', LOG_LEVEL: 'silent' },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
      child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
      child.on('error', reject);
      child.on('close', (code) => resolve({ code, stdout, stderr }));
    });

  before(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'certdesk-reviewer-cli-'));
    if (process.env.TEST_DATABASE_URL) {
      database = `certdesk_reviewer_${process.pid}_${randomBytes(4).toString('hex')}`;
      await adminQuery(`CREATE DATABASE ${database}`);
      const url = new URL(process.env.TEST_DATABASE_URL);
      url.pathname = `/${database}`;
      databaseUrl = url.toString();
    }
    const seeded = await certdesk(['seed', SEED]);
    assert.equal(seeded.code, 0, seeded.stderr);
  });
  after(async () => {
    if (database) await adminQuery(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
    rmSync(dir, { recursive: true, force: true });
  });

  it('grants, lists and revokes (text and --json); granting twice and revoking twice change nothing', async () => {
    const grant = await certdesk(['reviewer', 'grant', 'Owner@Small-Studio.example', '--json']);
    assert.equal(grant.code, 0, grant.stderr);
    assert.deepEqual(JSON.parse(grant.stdout), { email: 'owner@small-studio.example', changed: true, reviewer: true });
    const twice = await certdesk(['reviewer', 'grant', 'owner@small-studio.example']);
    assert.equal(twice.stdout, 'owner@small-studio.example was already a reviewer\n');
    const list = await certdesk(['reviewer', 'list', '--json']);
    const reviewers = JSON.parse(list.stdout) as Array<Record<string, string>>;
    assert.equal(reviewers.length, 1);
    assert.deepEqual({ ...reviewers[0], granted_at: undefined }, {
      email: 'owner@small-studio.example',
      username: 'Olive Owner',
      organization_id: reviewers[0]!.organization_id,
      organization_name: 'Small Studio',
      granted_at: undefined,
    });
    assert.ok(!Number.isNaN(Date.parse(reviewers[0]!.granted_at!)));
    assert.match((await certdesk(['reviewer', 'list'])).stdout, /^owner@small-studio\.example {2}Olive Owner {2}\(Small Studio, [0-9a-f-]{36}\) {2}since /);
    const revoke = await certdesk(['reviewer', 'revoke', 'owner@small-studio.example']);
    assert.equal(revoke.stdout, 'owner@small-studio.example is no longer a reviewer\n');
    assert.deepEqual(JSON.parse((await certdesk(['reviewer', 'revoke', 'owner@small-studio.example', '--json'])).stdout), { email: 'owner@small-studio.example', changed: false, reviewer: false });
    assert.equal((await certdesk(['reviewer', 'list'])).stdout, 'no reviewers\n');
    assert.deepEqual(JSON.parse((await certdesk(['reviewer', 'list', '--json'])).stdout), []);
  });

  it('an unknown e-mail or a missing argument fails with one line and exit code 1', async () => {
    const unknown = await certdesk(['reviewer', 'grant', 'nobody@nowhere.example']);
    assert.equal(unknown.code, 1);
    assert.equal(unknown.stderr, 'certdesk: no user with e-mail nobody@nowhere.example\n');
    const missing = await certdesk(['reviewer', 'revoke']);
    assert.equal(missing.code, 1);
    assert.equal(missing.stderr.split('\n').filter(Boolean).length, 1);
  });
});
