/**
 * Public certificate answers are kept in memory by each instance (src/http/public-certificate-cache.ts).
 * A revocation made elsewhere (another instance, or `certdesk certificates revoke`, which opens a
 * connection of its own and calls revokeCertificateNow) must show on every instance long before the
 * cache's TTL, which these instances set to an hour: only the change notification can explain it.
 */
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { revokeCertificateNow } from '../../src/domain/certificates/index.js';
import { insertSyntheticCertificates } from '../../src/domain/certificates/synthetic-certificates.js';
import { systemClock } from '../../src/domain/time/clock.js';
import { openDatabase, type DatabaseHandle } from '../../src/storage/database.js';
import { buildTestApp } from '../helpers/app.js';
import { eventually } from '../helpers/certificates.js';
import { describeOnEachDatabase } from '../helpers/database.js';
import { ACME, USERS } from '../helpers/fixtures.js';
import { apiTestConfig, startApi, type Api } from './api-harness.js';

const HOUR = { PUBLIC_CERTIFICATE_CACHE_TTL: '3600' };
const OPERATOR = { kind: 'system', component: 'operator' } as const;

describeOnEachDatabase('public certificate answers across instances', (getDb) => {
  let api: Api & { dir: string };
  let second: FastifyInstance;
  let ids: string[];

  before(async () => {
    api = await startApi(getDb(), undefined, {}, HOUR);
    second = await buildTestApp({ config: apiTestConfig(api.dir, HOUR), database: getDb() });
    await second.ready();
    ids = await insertSyntheticCertificates(getDb().db, api.app.services.certificates, {
      organizationId: ACME.id,
      organizationName: ACME.name,
      ownerEmail: USERS.admin.email,
      count: 2,
      orderIdPrefix: 'ord_instances_',
    });
  });
  after(async () => {
    await second?.close();
    await api?.close();
  });

  const get = (app: FastifyInstance, url: string, etag?: string): Promise<LightMyRequestResponse> =>
    app.inject({ method: 'GET', url, headers: etag ? { 'if-none-match': etag } : {} });

  /** Where the revocation comes from: a connection of its own on PostgreSQL, as the CLI opens one. */
  async function elsewhere(): Promise<{ handle: DatabaseHandle; close: () => Promise<void> }> {
    const db = getDb();
    if (db.kind !== 'postgres') {
      // On PGlite the CLI reaches the serving process's database through its socket: the same session.
      return { handle: db, close: async () => undefined };
    }
    const handle = await openDatabase({ databaseUrl: db.pgPool!.options.connectionString!, pgliteDir: null, poolSize: 1 });
    return { handle, close: () => handle.close() };
  }

  it('a revocation made through another connection shows on both instances, API and badge, within the notification', async (t) => {
    const id = ids[0]!;
    const apps = [api.app, second];
    const paths = [`/v1/certificates/${id}`, `/verify/${id}/badge.svg`];
    const etags = new Map<string, string>();
    for (const app of apps) {
      for (const path of paths) {
        const res = await get(app, path);
        assert.equal(res.statusCode, 200);
        assert.doesNotMatch(res.body, /"status":"revoked"|>Revoked</);
        assert.equal(res.headers['cache-control'], 'public, no-cache');
        etags.set(path, String(res.headers.etag));
        assert.equal((await get(app, path, String(res.headers.etag))).statusCode, 304);
      }
      if (getDb().kind === 'postgres') {
        // The listener starts with the first lookup and is trusted after its first heartbeat: from then on
        // the answer is kept. (Polled: the heartbeat's time is the database's, not ours.)
        await eventually(
          async () => (await get(app, paths[0]!)).statusCode === 200 && app.services.publicCertificates.size,
          (kept) => kept === 1,
          'the answer kept in memory',
        );
      } else {
        assert.equal(app.services.publicCertificates.size, 0, 'PGlite: nothing is kept, every request reads the row');
      }
    }

    const { handle, close } = await elsewhere();
    try {
      await revokeCertificateNow(handle.db, systemClock, id, 'Revoked by the operator', OPERATOR);
    } finally {
      await close();
    }
    const committed = Date.now();
    for (const app of apps) {
      for (const path of paths) {
        const res = await eventually(
          () => get(app, path, etags.get(path)),
          (r) => r.statusCode === 200,
          `${path} revalidated after the revocation`,
        );
        assert.match(res.body, path.endsWith('.svg') ? />Revoked</ : /"status":"revoked"/);
        assert.notEqual(res.headers.etag, etags.get(path));
        assert.equal(res.headers['cache-control'], 'public, no-cache');
      }
    }
    // An hour of TTL has not passed: the notification dropped the kept answers. (Time is logged, not
    // asserted: this machine's load decides it; the benchmark measures it under load.)
    t.diagnostic(`${getDb().kind}: revocation seen on both instances ${Date.now() - committed} ms after its commit`);
    assert.ok(Date.now() - committed < 3_600_000);
  });

  it('other certificates stay kept, and unknown ids are 404 and never kept', async () => {
    const id = ids[1]!;
    const before = api.app.services.publicCertificates.size;
    assert.equal((await get(api.app, `/v1/certificates/${id}`)).statusCode, 200);
    const unknown = await get(api.app, '/v1/certificates/00000000-0000-4000-8000-000000000000');
    assert.equal(unknown.statusCode, 404);
    assert.equal(unknown.headers['cache-control'], 'no-store');
    assert.equal(api.app.services.publicCertificates.size, getDb().kind === 'postgres' ? before + 1 : 0);
  });
});
