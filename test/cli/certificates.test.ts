/**
 * `certdesk certificates show|revoke` end to end: the real CLI (through tsx) against a database holding a
 * real certificate; PostgreSQL when TEST_DATABASE_URL is set, else embedded PGlite in a data directory.
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
import { insertSyntheticCertificates } from '../../src/domain/certificates/synthetic-certificates.js';
import { loadSeed } from '../../src/domain/seed/seed.js';
import { systemClock } from '../../src/domain/time/clock.js';
import { ensureSigningKey, loadKeyRing } from '../../src/oauth/keys/signing-keys.js';
import { openDatabase } from '../../src/storage/database.js';
import { migrate } from '../../src/storage/migrate.js';
import { LocalDirectoryStorage } from '../../src/storage/object-storage/index.js';

const MAIN = fileURLToPath(new URL('../../src/cli/main.ts', import.meta.url));
const BIN = fileURLToPath(new URL('../../bin/certdesk', import.meta.url));
const ENTRY = `import(${JSON.stringify(MAIN)}).then((m) => m.main(['node', 'certdesk', ...process.argv.slice(1)]))`;
const CLI = process.env.npm_lifecycle_event === 'test' ? [BIN] : ['--import', 'tsx', '-e', ENTRY, '--'];
const ORG = 'ce470000-0000-4000-8000-000000000001';

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

describe(`certdesk certificates (end to end, ${process.env.TEST_DATABASE_URL ? 'postgres' : 'pglite'})`, () => {
  let dir: string;
  let databaseUrl = '';
  let database: string | null = null;
  let certificateId: string;

  function certdesk(args: string[]): Promise<Run> {
    return new Promise((resolve, reject) => {
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
  }

  before(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'certdesk-cli-certs-'));
    if (process.env.TEST_DATABASE_URL) {
      database = `certdesk_clicert_${process.pid}_${randomBytes(4).toString('hex')}`;
      await adminQuery(`CREATE DATABASE ${database}`);
      const url = new URL(process.env.TEST_DATABASE_URL);
      url.pathname = `/${database}`;
      databaseUrl = url.toString();
    }
    const handle = await openDatabase({ databaseUrl: databaseUrl || null, pgliteDir: databaseUrl ? null : path.join(dir, 'pglite'), poolSize: 2 });
    try {
      await migrate(handle);
      await loadSeed(handle.db, new LocalDirectoryStorage(path.join(dir, 'objects')), {
        organizations: [{ id: ORG, name: 'Certified Co', users: [{ email: 'owner@certified.test', username: 'Owner', is_admin: true }] }],
      });
      await ensureSigningKey(handle.db, null);
      const ring = await loadKeyRing(handle.db, { masterKey: null, accessTokenTtlSeconds: 3600 });
      [certificateId] = (await insertSyntheticCertificates(
        handle.db,
        { clock: systemClock, signingKey: () => ring.signing, issuerUrl: 'http://localhost:8080', publicBaseUrl: 'http://localhost:8080' },
        { organizationId: ORG, organizationName: 'Certified Co', ownerEmail: 'owner@certified.test', count: 1 },
      )) as [string];
    } finally {
      await handle.close();
    }
  });
  after(async () => {
    if (database) await adminQuery(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
    rmSync(dir, { recursive: true, force: true });
  });

  it('shows a certificate (text and --json)', async () => {
    const json = await certdesk(['certificates', 'show', certificateId, '--json']);
    assert.equal(json.code, 0, json.stderr);
    const shown = JSON.parse(json.stdout) as Record<string, unknown>;
    assert.equal(shown.certificate_id, certificateId);
    assert.equal(shown.status, 'valid');
    assert.equal(shown.organization_id, ORG);
    assert.equal(shown.verify_url, `http://localhost:8080/verify/${certificateId}`);
    const text = await certdesk(['certificates', 'show', certificateId]);
    assert.equal(text.code, 0, text.stderr);
    assert.match(text.stdout, new RegExp(`^certificate ${certificateId}  VALID\\n`));
  });

  it('revokes once with a reason; a second revocation, an unknown id, a missing reason fail in one line', async () => {
    const revoked = await certdesk(['certificates', 'revoke', certificateId, '--reason', 'Generated, per the customer', '--json']);
    assert.equal(revoked.code, 0, revoked.stderr);
    const body = JSON.parse(revoked.stdout) as Record<string, unknown>;
    assert.equal(body.status, 'revoked');
    assert.equal(body.revocation_reason, 'Generated, per the customer');
    assert.equal(body.revoked_by, 'system:operator');
    const again = await certdesk(['certificates', 'revoke', certificateId, '--reason', 'again']);
    assert.equal(again.code, 1);
    assert.deepEqual(again.stderr, 'certdesk: The certificate is already revoked; revocation is final\n');
    const unknown = await certdesk(['certificates', 'show', '00000000-0000-4000-8000-000000000000']);
    assert.equal(unknown.code, 1);
    assert.equal(unknown.stderr, 'certdesk: no certificate 00000000-0000-4000-8000-000000000000\n');
    const malformed = await certdesk(['certificates', 'revoke', 'nope', '--reason', 'x']);
    assert.equal(malformed.code, 1);
    assert.equal(malformed.stderr, 'certdesk: Certificate not found\n');
    const noReason = await certdesk(['certificates', 'revoke', certificateId]);
    assert.equal(noReason.code, 1);
    assert.match(noReason.stderr, /--reason/);
    const shown = JSON.parse((await certdesk(['certificates', 'show', certificateId, '--json'])).stdout) as Record<string, unknown>;
    assert.equal(shown.status, 'revoked');
  });
});
