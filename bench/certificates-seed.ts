/**
 * Fills a PostgreSQL database with certified orders and real signed certificates, for the public
 * certificate lookup benchmark (DECISIONS 9 asks for 100,000): not a test.
 *
 *   DATABASE_URL=postgres://postgres@127.0.0.1:5432/certdesk_bench_certs npx tsx bench/certificates-seed.ts --count 100000
 *
 * Drops and recreates the database named by DATABASE_URL (default certdesk_bench_certs on 127.0.0.1),
 * migrates it, creates one organization and the first signing key, inserts the certificates through
 * `insertSyntheticCertificates` (batched INSERTs; signatures computed concurrently) and prints the time
 * taken and a file of certificate ids (one per line) for a load generator.
 */
import { writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { insertSyntheticCertificates } from '../src/domain/certificates/synthetic-certificates.js';
import { loadSeed } from '../src/domain/seed/seed.js';
import { systemClock } from '../src/domain/time/clock.js';
import { ensureSigningKey, loadKeyRing } from '../src/oauth/keys/signing-keys.js';
import { openDatabase } from '../src/storage/database.js';
import { migrate } from '../src/storage/migrate.js';
import { LocalDirectoryStorage } from '../src/storage/object-storage/index.js';

const { values } = parseArgs({ options: { count: { type: 'string' }, 'ids-file': { type: 'string' }, 'base-url': { type: 'string' } } });
const COUNT = Number(values.count ?? 100_000);
const URL_TEXT = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/certdesk_bench_certs';
const BASE = values['base-url'] ?? 'http://localhost:8080';
const ORG = 'be9c0000-0000-4000-8000-000000000001';

const url = new URL(URL_TEXT);
const name = url.pathname.slice(1);
if (!/^[a-z0-9_]+$/.test(name)) throw new Error(`database name ${name} is not a plain identifier`);
const adminUrl = new URL(URL_TEXT);
adminUrl.pathname = '/postgres';
const admin = new pg.Client({ connectionString: adminUrl.toString() });
await admin.connect();
await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
await admin.query(`CREATE DATABASE ${name}`);
await admin.end();

const handle = await openDatabase({ databaseUrl: url.toString(), pgliteDir: null, poolSize: 4 });
try {
  await migrate(handle);
  await loadSeed(handle.db, new LocalDirectoryStorage(path.join(os.tmpdir(), 'certdesk-bench-certs-objects')), {
    organizations: [{ id: ORG, name: 'Benchmark Studio', users: [{ email: 'owner@bench.example', username: 'Owner', is_admin: true }] }],
  });
  await ensureSigningKey(handle.db, null);
  const ring = await loadKeyRing(handle.db, { masterKey: null, accessTokenTtlSeconds: 3600 });
  const started = performance.now();
  const ids = await insertSyntheticCertificates(
    handle.db,
    { clock: systemClock, signingKey: () => ring.signing, issuerUrl: BASE, publicBaseUrl: BASE },
    { organizationId: ORG, organizationName: 'Benchmark Studio', ownerEmail: 'owner@bench.example', count: COUNT },
  );
  const seconds = (performance.now() - started) / 1000;
  const idsFile = values['ids-file'] ?? path.join(os.tmpdir(), 'certdesk-bench-certificate-ids.txt');
  writeFileSync(idsFile, `${ids.join('\n')}\n`);
  process.stdout.write(`${COUNT} certificates (with their orders) in ${seconds.toFixed(1)} s (${Math.round(COUNT / seconds)}/s) into ${name}; ids in ${idsFile}\n`);
} finally {
  await handle.close();
}
