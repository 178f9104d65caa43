/**
 * Order intake with S3-compatible object storage (AWS SDK against s3rver on 127.0.0.1): the client PUTs
 * straight to the bucket with the presigned URL, the API checks the bytes in the bucket, the analysis job
 * reads them from there. On PGlite and PostgreSQL.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { OrderT } from '../../src/contract/schemas.js';
import { ManualClock } from '../../src/domain/time/clock.js';
import { CLEANUP_JOB } from '../../src/domain/intake/cleanup.js';
import { enqueueJob } from '../../src/jobs/job-queue.js';
import { jobHandlers } from '../../src/jobs/job-runtime.js';
import { Worker } from '../../src/jobs/worker.js';
import type { S3ObjectStorage } from '../../src/storage/object-storage/index.js';
import { databaseTargets } from '../helpers/database.js';
import { ACME } from '../helpers/fixtures.js';
import { jpegBytes, pngBytes, textBytes } from '../helpers/images.js';
import { startS3Server, type TestS3Server } from '../helpers/s3-server.js';
import { startApi, type Api } from './api-harness.js';

for (const target of databaseTargets()) {
  describe(`order intake on S3 storage, ${target.name}`, () => {
    let s3: TestS3Server;
    let storage: S3ObjectStorage;
    let api: Api;
    let worker: Worker;
    const clock = new ManualClock(Date.now());

    before(async () => {
      s3 = await startS3Server();
      storage = s3.storage('certdesk');
      api = await startApi(target, undefined, { storage, clock });
      worker = new Worker({ db: api.database.db, concurrency: 2, handlers: jobHandlers({ db: api.database.db, clock, storage, concurrency: 2 }) });
    });
    after(async () => {
      await api.close();
      await s3.close();
    });

    const headers = { authorization: '', 'content-type': 'application/json' };
    const asAdmin = () => ({ ...headers, authorization: `Bearer ${api.tokens.admin}` });

    async function announce(bytes: Buffer, contentType: string) {
      const res = await api.app.inject({ method: 'POST', url: '/v1/uploads', headers: asAdmin(), payload: { file_name: 'asset.bin', content_type: contentType, size: bytes.length } });
      assert.equal(res.statusCode, 201, res.body);
      return res.json() as { upload_id: string; upload_url: string; upload_headers: Record<string, string> };
    }

    it('the web pages may send uploads to the bucket: its origin is in connect-src, nothing else is', async () => {
      const res = await api.app.inject({ method: 'GET', url: '/sign-in' });
      const csp = String(res.headers['content-security-policy']);
      const connect = /connect-src ([^;]+)/.exec(csp)?.[1]?.split(' ') ?? [];
      assert.deepEqual(connect, ["'self'", 'https://api.certdesk.test', new URL(s3.endpoint).origin], csp);
    });

    it('uploads straight to the bucket and creates an order that analysis moves', async () => {
      for (const [bytes, type, state, passed] of [
        [pngBytes(), 'image/png', 'In Progress', true],
        [await jpegBytes(), 'image/jpeg', 'In Progress', true],
        [textBytes(), 'image/png', 'Unsupported File', false],
      ] as const) {
        const ticket = await announce(bytes, type);
        assert.match(ticket.upload_url, new RegExp(`^${s3.endpoint}/${s3.bucket}/certdesk/orgs/${ACME.id}/uploads/${ticket.upload_id}\\?`));
        const put = await fetch(ticket.upload_url, { method: 'PUT', headers: ticket.upload_headers, body: new Uint8Array(bytes) });
        assert.equal(put.status, 200);
        const res = await api.app.inject({ method: 'POST', url: '/v1/orders', headers: asAdmin(), payload: { upload_id: ticket.upload_id, project_id: ACME.projects.beta.id, order_title: type } });
        assert.equal(res.statusCode, 201, res.body);
        const order = res.json() as OrderT;
        assert.equal(await worker.runDue(), 1);
        const analyzed = (await api.get(`/v1/orders/${order.order_id}`, 'admin')).json() as OrderT;
        assert.equal(analyzed.order_state, state);
        // Accepted files pass every check that needs no configuration, and their preview lives in the bucket.
        const checks = passed ? ['file_type', 'metadata', 'layer_check'] : ['file_type'];
        assert.deepEqual(analyzed.analysis_list, checks.map((analysis_type) => ({ analysis_type, analysis_passed: passed })));
        if (passed) assert.ok(await storage.exists(`orgs/${ACME.id}/orders/${order.order_id}/preview.jpg`), 'preview stored in S3');
      }
    });

    it('the cleanup job deletes expired unused uploads from the bucket, bytes then rows, and leaves used ones', async () => {
      const put = async (ticket: { upload_url: string; upload_headers: Record<string, string> }, bytes: Buffer) =>
        assert.equal((await fetch(ticket.upload_url, { method: 'PUT', headers: ticket.upload_headers, body: new Uint8Array(bytes) })).status, 200);
      const bytes = pngBytes();
      const stale = [await announce(bytes, 'image/png'), await announce(bytes, 'image/png')];
      for (const t of stale) await put(t, bytes);
      const neverPut = await announce(bytes, 'image/png');
      const used = await announce(bytes, 'image/png');
      await put(used, bytes);
      const order = await api.app.inject({ method: 'POST', url: '/v1/orders', headers: asAdmin(), payload: { upload_id: used.upload_id, project_id: null, order_title: 'kept' } });
      assert.equal(order.statusCode, 201, order.body);
      while ((await worker.runDue()) > 0); // the order's analysis
      const key = (id: string) => `orgs/${ACME.id}/uploads/${id}`;
      clock.advance(3 * 3_600_000); // expired two hours ago: past the cleanup's one-hour grace
      await enqueueJob(api.database.db, CLEANUP_JOB, {}, { singletonKey: CLEANUP_JOB, maxAttempts: 1 });
      assert.equal(await worker.runDue(), 1);
      for (const t of [...stale, neverPut]) {
        assert.equal(await storage.exists(key(t.upload_id)), false);
        assert.equal(await api.database.db.selectFrom('uploads').select('upload_id').where('upload_id', '=', t.upload_id).executeTakeFirst(), undefined);
      }
      assert.equal(await storage.exists(key(used.upload_id)), true, 'an order\'s asset stays');
      const failed = await api.database.db.selectFrom('jobs').select('state').where('kind', '=', CLEANUP_JOB).where('state', '=', 'failed').executeTakeFirst();
      assert.equal(failed, undefined);
    });

    it('refuses an upload whose bytes in the bucket are missing or not the announced size', async () => {
      const bytes = pngBytes();
      const missing = await announce(bytes, 'image/png');
      const create = (uploadId: string) =>
        api.app.inject({ method: 'POST', url: '/v1/orders', headers: asAdmin(), payload: { upload_id: uploadId, project_id: null, order_title: 'x' } });
      const empty = await create(missing.upload_id);
      assert.equal(empty.statusCode, 422);
      assert.equal((empty.json() as { detail: Array<{ ctx: { reason: string } }> }).detail[0]!.ctx.reason, 'empty');
      const short = await announce(bytes, 'image/png');
      // Written with the SDK directly, one byte short (a bucket that enforces signed lengths refuses the PUT itself).
      await storage.put(`orgs/${ACME.id}/uploads/${short.upload_id}`, bytes.subarray(1), 'image/png');
      const mismatch = await create(short.upload_id);
      assert.equal(mismatch.statusCode, 422);
      assert.deepEqual((mismatch.json() as { detail: Array<{ loc: unknown[]; ctx: { reason: string } }> }).detail.map((d) => [d.loc, d.ctx.reason]), [[['body', 'upload_id'], 'size_mismatch']]);
    });
  });
}
