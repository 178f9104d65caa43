/**
 * The transparency log on S3 object storage (OBJECT_STORAGE_URL; here s3rver, a real S3-compatible server):
 * the sequencer writes the tiles, bundles and checkpoint under `<prefix>/log/` exactly as the URLs lay
 * them out (so the bucket can serve them or be mirrored with `aws s3 sync`), the service serves them from
 * there, and the whole log audits. PGlite, and PostgreSQL when TEST_DATABASE_URL is set.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { insertSyntheticCertificates } from '../../src/domain/certificates/synthetic-certificates.js';
import { readVerifierKey, tilePath } from '../../src/domain/transparency-log/index.js';
import type { S3ObjectStorage } from '../../src/storage/object-storage/index.js';
import { sequenceLog } from '../helpers/certificates.js';
import { databaseTargets } from '../helpers/database.js';
import { ACME, USERS } from '../helpers/fixtures.js';
import { startS3Server, type TestS3Server } from '../helpers/s3-server.js';
import { startApi, type Api } from '../http/api-harness.js';
import { auditLog } from './log-audit.js';

for (const target of databaseTargets()) {
  describe(`transparency log on S3 storage, ${target.name}`, () => {
    let s3: TestS3Server;
    let storage: S3ObjectStorage;
    let api: Api;

    before(async () => {
      s3 = await startS3Server();
      storage = s3.storage('certdesk');
      api = await startApi(target, undefined, { storage });
    });
    after(async () => {
      await api?.close();
      await s3?.close();
    });

    it('writes the tlog-tiles layout to the bucket, serves it from there, and audits', async () => {
      await insertSyntheticCertificates(api.database.db, api.app.services.certificates, { organizationId: ACME.id, organizationName: ACME.name, ownerEmail: USERS.admin.email, count: 600, orderIdPrefix: 'ord_s3_', batchSize: 200 });
      await sequenceLog(api.app);
      const key = (await readVerifierKey(api.database.db))!;
      const report = await auditLog(api.database.db, storage, key);
      assert.equal(report.entries, 600);
      assert.equal(report.publishedSize, 600);
      // The objects are at `<prefix>/log/<the URL's path>`: the bucket itself could serve them.
      for (const path of [tilePath({ level: 0, index: 1, width: 256 }), tilePath({ level: 'entries', index: 2, width: 88 }), tilePath({ level: 1, index: 0, width: 2 }), 'checkpoint']) {
        const stored = await storage.get(`log/${path}`);
        assert.ok(stored, `log/${path} in the bucket`);
        const served = await api.app.inject({ url: `/log/${path}` });
        assert.equal(served.statusCode, 200, path);
        const chunks: Buffer[] = [];
        for await (const chunk of stored.body) chunks.push(chunk as Buffer);
        assert.ok(Buffer.concat(chunks).equals(served.rawPayload), `/log/${path} is the bucket's object`);
      }
      assert.equal((await api.app.inject({ url: '/log/tile/0/003' })).statusCode, 404);
    });
  });
}
