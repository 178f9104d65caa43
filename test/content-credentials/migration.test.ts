/**
 * Migration 0019 on a database that already has certificates: each gets `content_credentials: pending` and
 * a `make_content_credentials` job, which the service's worker then runs like any other (the file made,
 * validating as Trusted). PGlite, and PostgreSQL when TEST_DATABASE_URL is set.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { insertCertificateBatch } from '../../src/domain/certificates/certificate.repository.js';
import { insertOrderBatch } from '../../src/domain/order-import/order-import.repository.js';
import { toOrderRow } from '../../src/domain/orders/order-document.js';
import { ensureSigningKey } from '../../src/oauth/keys/signing-keys.js';
import type { DatabaseHandle } from '../../src/storage/database.js';
import { loadMigrations, migrate } from '../../src/storage/migrate.js';
import { buildTestApp } from '../helpers/app.js';
import { unmigratedDatabaseTargets } from '../helpers/database.js';
import { ACME, loadStandardFixture, temporaryObjectStorage, USERS } from '../helpers/fixtures.js';
import { pngBytes } from '../helpers/images.js';
import { readManifestStore, runContentCredentialsJobs } from '../helpers/content-credentials.js';
import { apiTestConfig } from '../http/api-harness.js';

const CERTIFICATE_ID = 'cc000000-0000-4000-8000-000000000001';

for (const target of unmigratedDatabaseTargets('ccfill')) {
  describe(`migration 0019 (content credentials) queues the files of earlier certificates on ${target.name}`, () => {
    let handle: DatabaseHandle;
    let app: FastifyInstance | undefined;
    const objects = temporaryObjectStorage();
    const asset = pngBytes(30, 20);

    before(async () => {
      handle = await target.open();
      const all = await loadMigrations();
      await migrate(handle, all.filter((m) => m.version < '0019'));
      await loadStandardFixture(handle, objects.storage);
      await ensureSigningKey(handle.db, null);
      const kid = (await handle.db.selectFrom('signing_keys').select('kid').executeTakeFirstOrThrow()).kid;
      await objects.storage.put('orgs/earlier/asset.png', asset, 'image/png');
      await insertOrderBatch(handle.db, [
        toOrderRow(ACME.id, {
          order_id: 'ord_earlier',
          username: 'ada',
          email: USERS.admin.email,
          order_state: 'Human Certified',
          order_title: 'Certified before Content Credentials',
          asset_id: 'a1',
          asset_name: 'earlier.png',
          asset_last_modified_timestamp: '1767225600',
          ordered_by: null,
          creation_time: '2026-01-01T00:00:00Z',
          reviewed_by: 'reviewer@certifier.test',
          review_timestamp: '2026-01-01T00:00:00Z',
          project_id: null,
        }),
      ]);
      await handle.db.updateTable('orders').set({ asset_key: 'orgs/earlier/asset.png', asset_content_type: 'image/png' }).where('order_id', '=', 'ord_earlier').execute();
      await insertCertificateBatch(handle.db, [
        {
          certificate_id: CERTIFICATE_ID,
          order_id: 'ord_earlier',
          organization_id: ACME.id,
          kid,
          jws: 'header.payload.signature',
          asset_name: 'earlier.png',
          asset_sha256: createHash('sha256').update(asset).digest('hex'),
          asset_media_type: 'image/png',
          verify_url: `https://api.certdesk.test/verify/${CERTIFICATE_ID}`,
          issued_at: new Date(Date.now() - 3_600_000),
          issued_by: 'reviewer@certifier.test',
        },
      ]);
      await migrate(handle, all);
    });
    after(async () => {
      await app?.close();
      await handle?.close();
      objects.remove();
    });

    it('the earlier certificate is pending with its job, then gets its file', async () => {
      const row = await handle.db.selectFrom('certificates').select(['content_credentials']).where('certificate_id', '=', CERTIFICATE_ID).executeTakeFirstOrThrow();
      assert.equal(row.content_credentials, 'pending');
      const jobs = await handle.db.selectFrom('jobs').select(['kind', 'payload', 'singleton_key', 'state']).where('kind', '=', 'make_content_credentials').execute();
      assert.equal(jobs.length, 1);
      assert.deepEqual(jobs[0]!.payload, { certificate_id: CERTIFICATE_ID });
      assert.equal(jobs[0]!.state, 'queued');

      app = await buildTestApp({ config: apiTestConfig(objects.dir), database: handle, storage: objects.storage });
      await app.ready();
      await runContentCredentialsJobs(app);
      const made = await handle.db.selectFrom('certificates').select(['content_credentials', 'content_credentials_key']).where('certificate_id', '=', CERTIFICATE_ID).executeTakeFirstOrThrow();
      assert.equal(made.content_credentials, 'ready');
      const file = await objects.storage.get(made.content_credentials_key!);
      const chunks: Buffer[] = [];
      for await (const chunk of file!.body) chunks.push(chunk as Buffer);
      const anchors = (await app.inject({ url: '/.well-known/c2pa-trust-anchors.pem' })).body;
      const store = await readManifestStore(Buffer.concat(chunks), 'image/png', anchors);
      assert.equal(store.validation_state, 'Trusted');
    });
  });
}
