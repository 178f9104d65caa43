/**
 * Fills a PostgreSQL database with certified orders and real signed certificates, for the public
 * certificate lookup benchmark (issue 19 asks for 100,000): not a test. Used by bench/certificates.ts, or
 * on its own:
 *
 *   DATABASE_URL=postgres://postgres@127.0.0.1:5432/certdesk_bench_certs npx tsx bench/certificates-seed.ts --count 100000
 *
 * Drops and recreates the database named by DATABASE_URL (default certdesk_bench_certs on 127.0.0.1),
 * migrates it, creates one organization and the first signing key, inserts the certificates through
 * `insertSyntheticCertificates` (multi-row INSERTs of 1,000 orders and 1,000 certificates per
 * transaction; signatures computed concurrently) and prints the time taken. The n-th certificate's id is
 * `benchCertificateId(n)`, so a load generator and pgbench pick random ones without a list.
 */
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { insertSyntheticCertificates } from '../src/domain/certificates/synthetic-certificates.js';
import { loadSeed } from '../src/domain/seed/seed.js';
import { systemClock } from '../src/domain/time/clock.js';
import { ensureSigningKey, loadKeyRing } from '../src/oauth/keys/signing-keys.js';
import { openDatabase } from '../src/storage/database.js';
import { openTransparencyLog } from '../src/domain/transparency-log/index.js';
import { migrate } from '../src/storage/migrate.js';
import { LocalDirectoryStorage } from '../src/storage/object-storage/index.js';

export const DEFAULT_CERTIFICATES_DATABASE_URL = 'postgres://postgres@127.0.0.1:5432/certdesk_bench_certs';
const ORG = 'be9c0000-0000-4000-8000-000000000001';
/** The first 24 characters of every benchmark certificate id; the last 12 are n in hexadecimal. */
export const BENCH_CERTIFICATE_ID_PREFIX = 'ce000000-0000-4000-8000-';

/** The id of the n-th benchmark certificate (0-based): a well-formed UUID (version 4, variant 10). */
export function benchCertificateId(n: number): string {
  return `${BENCH_CERTIFICATE_ID_PREFIX}${n.toString(16).padStart(12, '0')}`;
}

export interface SeedFigures {
  count: number;
  /** Time of the inserts alone (signing included), without creating and migrating the database. */
  seconds: number;
}

/** Recreates the database of `databaseUrl` with `count` certificates (see the file comment). */
export async function seedCertificates(databaseUrl: string, count: number, baseUrl: string): Promise<SeedFigures> {
  const url = new URL(databaseUrl);
  const name = url.pathname.slice(1);
  if (!/^[a-z0-9_]+$/.test(name)) throw new Error(`database name ${name} is not a plain identifier`);
  const adminUrl = new URL(databaseUrl);
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
    await insertSyntheticCertificates(
      handle.db,
      { clock: systemClock, signingKey: () => ring.signing, issuerUrl: baseUrl, publicBaseUrl: baseUrl },
      { organizationId: ORG, organizationName: 'Benchmark Studio', ownerEmail: 'owner@bench.example', count, certificateIdOf: benchCertificateId },
    );
    const seconds = (performance.now() - started) / 1000;
    // Every certificate is in the transparency log (its entry waits for the sequencer): sequenced here, so
    // the serve being measured does not spend the run integrating 100,000 entries (not part of `seconds`).
    const log = openTransparencyLog({ db: handle.db, storage: new LocalDirectoryStorage(path.join(os.tmpdir(), 'certdesk-bench-certs-objects')), masterKey: null, publicBaseUrl: baseUrl, sequencerId: 'bench/seed' });
    for (;;) {
      const round = await log.sequencer.runRound();
      if (round.integrated === 0 && round.published === null) break;
    }
    await log.sequencer.stop();
    // Fresh statistics, as a database that has lived a while would have.
    await handle.pgPool!.query('ANALYZE');
    return { count, seconds };
  } finally {
    await handle.close();
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const { values } = parseArgs({ options: { count: { type: 'string' }, 'base-url': { type: 'string' } } });
  const databaseUrl = process.env.DATABASE_URL ?? DEFAULT_CERTIFICATES_DATABASE_URL;
  const { count, seconds } = await seedCertificates(databaseUrl, Number(values.count ?? 100_000), values['base-url'] ?? 'http://localhost:8080');
  process.stdout.write(`${count} certificates (with their orders) in ${seconds.toFixed(1)} s (${Math.round(count / seconds)}/s) into ${new URL(databaseUrl).pathname.slice(1)}\n`);
}
