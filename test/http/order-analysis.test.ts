/**
 * Analysis end to end: orders created through the API (upload, presigned PUT, POST /v1/orders) are
 * analyzed by the durable job queue with every check — file_type, metadata, layer_check (preview and PSD
 * layers stored in object storage) and ai_detection against a real detection server on 127.0.0.1 — and
 * reach their review-waiting or final state with analysis_list, annotations, failed items, preview and
 * layers. Failure modes of the service (5xx, timeout, bad JSON) and a truncated image go through the
 * queue's retries. Real files made by the tests; the backoff is fixed and passes by moving the queue's
 * (database) time with advanceJobTime. PGlite and PostgreSQL.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import sharp from 'sharp';
import { SCOPES, type OrderT } from '../../src/contract/schemas.js';
import { listOrderEvents } from '../../src/domain/orders/order-lifecycle.repository.js';
import { createClient } from '../../src/domain/api-clients/client-admin.js';
import { ManualClock } from '../../src/domain/time/clock.js';
import { HttpDetectionService } from '../../src/integrations/detection-service/index.js';
import { jobHandlers } from '../../src/jobs/job-runtime.js';
import { Worker, type JobHandler } from '../../src/jobs/worker.js';
import { findJobs } from '../../src/jobs/job.repository.js';
import { ANALYZE_ORDER_JOB, analysisJobKey } from '../../src/domain/background/job-kinds.js';
import { analysisChecks } from '../../src/domain/analysis/checks.js';
import { findAnalysisFailure } from '../../src/domain/analysis/analysis-failure.repository.js';
import { sql } from 'kysely';
import { LocalDirectoryStorage } from '../../src/storage/object-storage/index.js';
import { flatImage, layeredPsd, noisePng, truncatedPng, xmpDeclaredImage } from '../helpers/analysis-files.js';
import { databaseTargets } from '../helpers/database.js';
import { advanceJobTime } from '../helpers/job-time.js';
import { startDetectionServer, type DetectionServer } from '../helpers/detection-server.js';
import { ACME, USERS } from '../helpers/fixtures.js';
import { startApi, obtainToken, type Api } from './api-harness.js';

const passed = (...types: string[]) => types.map((analysis_type) => ({ analysis_type, analysis_passed: true }));
const ALL_CHECKS = ['file_type', 'metadata', 'layer_check', 'ai_detection'];
const BACKOFF_MS = 1000;

for (const target of databaseTargets()) {
  describe(`order analysis end to end on ${target.name}`, () => {
    let api: Api & { dir: string };
    let detector: DetectionServer;
    let worker: Worker;
    let editorToken: string;
    const clock = new ManualClock(Date.UTC(2030, 0, 1));

    before(async () => {
      api = await startApi(target, undefined, { clock });
      detector = await startDetectionServer();
      const c = await createClient(api.database.db, { organizationId: ACME.id, userEmail: USERS.editor.email, scopes: [SCOPES.read, SCOPES.write] });
      editorToken = await obtainToken(api.app, c.client_id, c.client_secret);
      const detection = detectionService();
      const storage = new LocalDirectoryStorage(api.dir);
      worker = new Worker({ db: api.database.db, concurrency: 2, backoffMs: () => BACKOFF_MS, handlers: jobHandlers({ db: api.database.db, clock, storage, detection, concurrency: 2 }) });
    });
    after(async () => {
      await detector.close();
      await api.close();
    });

    const detectionService = () => new HttpDetectionService({ url: detector.url, key: detector.key, timeoutMs: 3000, maxRequestBytes: 5 * 1024 * 1024 });

    /** Upload (presigned PUT) and create an order in project Zeta (weighted threshold 0.7, object threshold 0.6 from ACME). */
    async function order(bytes: Buffer, fileName: string, projectId: string | null = ACME.projects.zeta.id): Promise<string> {
      const auth = { authorization: `Bearer ${editorToken}` };
      const ticket = await api.app.inject({ method: 'POST', url: '/v1/uploads', headers: auth, payload: { file_name: fileName, content_type: 'application/octet-stream', size: bytes.length } });
      assert.equal(ticket.statusCode, 201, ticket.body);
      const { upload_url, upload_headers, upload_id } = ticket.json() as { upload_url: string; upload_headers: Record<string, string>; upload_id: string };
      const put = await api.app.inject({ method: 'PUT', url: upload_url.replace('https://api.certdesk.test', ''), headers: upload_headers, payload: bytes });
      assert.equal(put.statusCode, 200, put.body);
      const created = await api.app.inject({ method: 'POST', url: '/v1/orders', headers: auth, payload: { upload_id, project_id: projectId, order_title: fileName } });
      assert.equal(created.statusCode, 201, created.body);
      return (created.json() as OrderT).order_id;
    }

    async function get(orderId: string): Promise<OrderT> {
      const res = await api.get(`/v1/orders/${orderId}`, 'editor');
      assert.equal(res.statusCode, 200, res.body);
      return res.json() as OrderT;
    }

    /** Fetches a presigned object URL through the app (as a browser would follow it). */
    async function fetchObject(url: string): Promise<Buffer> {
      const u = new URL(url);
      const res = await api.app.inject({ method: 'GET', url: `${u.pathname}${u.search}` });
      assert.equal(res.statusCode, 200, `${url}: ${res.statusCode}`);
      return res.rawPayload;
    }

    /** Runs due jobs, then moves the queue's clock past the backoff, until nothing is due any more (25 attempts at most). */
    async function drain(): Promise<void> {
      for (let round = 0; round < 80; round++) {
        const ran = await worker.runDue();
        await advanceJobTime(api.database.db, BACKOFF_MS);
        if (ran === 0 && (await worker.runDue()) === 0) return;
      }
      assert.fail('the queue did not settle');
    }

    it('a clean PNG passes every check, gets a JPEG preview, and waits In Progress for a reviewer', async () => {
      const png = await noisePng(300, 200);
      const id = await order(png, 'clean.png');
      await drain();
      const o = await get(id);
      assert.equal(o.order_state, 'In Progress');
      assert.deepEqual(o.analysis_list, passed(...ALL_CHECKS));
      assert.deepEqual([o.annotations, o.analysis_failed_items, o.layers_info], [[], [], []]);
      const preview = await sharp(await fetchObject(o.asset_preview_url!)).metadata();
      assert.deepEqual([preview.format, preview.width, preview.height], ['jpeg', 300, 200]);
      const sent = detector.requests.at(-1)!;
      assert.deepEqual([sent.contentType, sent.size, sent.authorization], ['image/png', png.length, `Bearer ${detector.key}`]);
    });

    it('a layered PSD gets its layers as PNGs in layers_info and its composite as preview; the service sees the preview', async () => {
      const id = await order(layeredPsd(), 'art.psd');
      await drain();
      const o = await get(id);
      assert.equal(o.order_state, 'In Progress');
      assert.deepEqual(o.analysis_list, passed(...ALL_CHECKS));
      assert.deepEqual(o.layers_info!.map((l) => l.layer_name), ['Background', 'Drawing / Sketch', 'Ink']);
      const sizes = [];
      for (const layer of o.layers_info!) {
        assert.match(layer.layer_url, new RegExp(`/objects/orgs/${ACME.id}/orders/${id}/layers/\\d\\.png\\?`));
        const meta = await sharp(await fetchObject(layer.layer_url)).metadata();
        assert.equal(meta.format, 'png');
        sizes.push([meta.width, meta.height]);
      }
      assert.deepEqual(sizes, [[48, 32], [20, 10], [16, 12]]);
      assert.equal((await sharp(await fetchObject(o.asset_preview_url!)).metadata()).format, 'jpeg');
      assert.equal(detector.requests.at(-1)!.contentType, 'image/jpeg');
    });

    it('a JPEG whose XMP declares trainedAlgorithmicMedia fails metadata and moves to Action Required', async () => {
      const id = await order(await xmpDeclaredImage('jpeg', 'trainedAlgorithmicMedia'), 'declared.jpg');
      await drain();
      const o = await get(id);
      assert.equal(o.order_state, 'Action Required');
      assert.deepEqual(o.analysis_list, [
        { analysis_type: 'file_type', analysis_passed: true },
        { analysis_type: 'metadata', analysis_passed: false },
        { analysis_type: 'layer_check', analysis_passed: true },
        { analysis_type: 'ai_detection', analysis_passed: true },
      ]);
      assert.deepEqual(o.analysis_failed_items!.map((i) => [i.type, i.name, i.ai_likelihood]), [['metadata', 'xmp Iptc4xmpExt.DigitalSourceType: trainedAlgorithmicMedia', 1]]);
      const events = await listOrderEvents(api.database.db, id);
      assert.deepEqual(events.map((e) => [e.type, e.from_state, e.to_state]), [['created', null, 'In Progress'], ['analysis_completed', null, null], ['state_changed', 'In Progress', 'Action Required']]);
    });

    it("detection regions become annotations; the project's thresholds decide items and verdict", async () => {
      // Zeta: object_flag_threshold 0.6 (organization), weighted_confidence_threshold 0.7 (project).
      const flagged = await flatImage('png', 64, 64, '#aa0000');
      detector.answerFor(flagged, {
        kind: 'json',
        body: {
          score: 0.75,
          regions: [
            { label: 'hand', confidence: 0.92, geometry: { type: 'RECTANGLE', x: 0.25, y: 0.5, w: 0.25, h: 0.25 } },
            { label: 'sky', confidence: 0.55, geometry: { type: 'POLYGON', points: [[0, 0], [1, 0], [0.5, 0.25]] } },
          ],
        },
      });
      const id = await order(flagged, 'flagged.png');
      await drain();
      const o = await get(id);
      assert.equal(o.order_state, 'Action Required');
      assert.deepEqual(o.analysis_list!.at(-1), { analysis_type: 'ai_detection', analysis_passed: false });
      assert.deepEqual(o.annotations!.map((a) => [a.id, a.bodies![0]!.value, a.properties!.needs_remediation, a.properties!.ai_likelihood, a.target!.selector.type]), [
        ['ai_detection-1', 'hand', true, 0.92, 'RECTANGLE'],
        ['ai_detection-2', 'sky', false, 0.55, 'POLYGON'],
      ]);
      assert.deepEqual(o.annotations![0]!.target!.selector.geometry, { bounds: { minX: 0.25, minY: 0.5, maxX: 0.5, maxY: 0.75 }, x: 0.25, y: 0.5, w: 0.25, h: 0.25, points: null });
      assert.deepEqual(o.analysis_failed_items!.map((i) => [i.type, i.name, i.ai_likelihood, i.annotation_id]), [['ai_region', 'hand', 0.92, 'ai_detection-1']]);

      // The same answer for a personal order: ACME's weighted threshold is the built-in 0.5, also failed;
      // a score of 0.65 passes Zeta's 0.7 while its flagged region is still listed.
      const below = await flatImage('png', 64, 64, '#00aa00');
      detector.answerFor(below, { kind: 'json', body: { score: 0.65, regions: [{ label: 'hand', confidence: 0.8, geometry: { type: 'RECTANGLE', x: 0, y: 0, w: 0.5, h: 0.5 } }] } });
      const zeta = await get(await order(below, 'below.png').then(async (oid) => (await drain(), oid)));
      assert.equal(zeta.order_state, 'In Progress');
      assert.deepEqual(zeta.analysis_list, passed(...ALL_CHECKS));
      assert.equal(zeta.analysis_failed_items!.length, 1);
      const personal = await get(await order(below, 'below-personal.png', null).then(async (oid) => (await drain(), oid)));
      assert.equal(personal.order_state, 'Action Required');
    });

    it('a 503 and a timeout from the service are retried by the queue; the order then completes', async () => {
      const flaky = await flatImage('png', 32, 32, '#0000aa');
      detector.answerFor(flaky, [{ kind: 'status', status: 503 }, { kind: 'hang' }, { kind: 'json', body: { score: 0.1, regions: [] } }]);
      const before = detector.requests.length;
      const id = await order(flaky, 'flaky.png');
      await drain();
      const o = await get(id);
      assert.equal(o.order_state, 'In Progress');
      assert.deepEqual(o.analysis_list, passed(...ALL_CHECKS));
      assert.equal(detector.requests.length - before, 3, 'three attempts reached the service');
    });

    it('a service that keeps answering bad JSON fails the order after the retries, ai_detection not passed', async () => {
      const broken = await flatImage('png', 32, 32, '#00aaaa');
      detector.answerFor(broken, { kind: 'raw', body: '{"score": 0.4, "regions": [' });
      const id = await order(broken, 'broken.png');
      await drain();
      const o = await get(id);
      assert.equal(o.order_state, 'Failed');
      assert.deepEqual(o.analysis_list, [...passed('file_type', 'metadata', 'layer_check'), { analysis_type: 'ai_detection', analysis_passed: false }]);
      const last = (await listOrderEvents(api.database.db, id)).at(-1)!;
      assert.equal(last.to_state, 'Failed');
      assert.match(last.note ?? '', /^ai_detection failed: .*not JSON/);
    });

    it('a truncated PNG passes file_type, then fails layer_check on every attempt and ends Failed', async () => {
      const id = await order(await truncatedPng(), 'cut.png');
      await drain();
      const o = await get(id);
      assert.equal(o.order_state, 'Failed');
      assert.deepEqual(o.analysis_list, [...passed('file_type', 'metadata'), { analysis_type: 'layer_check', analysis_passed: false }]);
      assert.equal(o.asset_preview_url, null);
      const last = (await listOrderEvents(api.database.db, id)).at(-1)!;
      assert.match(last.note ?? '', /^layer_check failed: .*(libpng|read error|truncated)/i);
    });

    it('a final-failure hook that throws commits nothing: the order is not left In Progress without a job, it fails once the lease runs out', async () => {
      const broken = await flatImage('png', 30, 30, '#aa00aa');
      detector.answerFor(broken, { kind: 'status', status: 500 });
      const storage = new LocalDirectoryStorage(api.dir);
      const real = jobHandlers({ db: api.database.db, clock, storage, detection: detectionService(), concurrency: 1 })[ANALYZE_ORDER_JOB]!;
      let hookRuns = 0;
      const errors: unknown[] = [];
      // The real hook runs (moves the order to Failed in the job's transaction), then the first time a
      // failure after it: everything it wrote must roll back with the job's failure.
      const flakyHook: JobHandler = {
        run: real.run,
        async onFinalFailure(payload, error, context) {
          await real.onFinalFailure!(payload, error, context);
          if (++hookRuns === 1) throw new Error('connection reset while failing');
        },
      };
      const single = new Worker({ db: api.database.db, concurrency: 1, leaseMs: 30_000, backoffMs: () => BACKOFF_MS, handlers: { [ANALYZE_ORDER_JOB]: flakyHook }, onError: (e) => errors.push(e) });
      await drain(); // earlier tests' jobs out of the way
      const id = await order(broken, 'hook.png');
      await sql`UPDATE jobs SET max_attempts = 2 WHERE singleton_key = ${analysisJobKey(id)}`.execute(api.database.db);
      assert.equal(await single.runDue(), 1);
      await advanceJobTime(api.database.db, BACKOFF_MS);
      assert.equal(await single.runDue(), 1, 'the last attempt');
      assert.equal(hookRuns, 1);
      assert.match(String(errors[0]), /connection reset/);
      assert.equal((await get(id)).order_state, 'In Progress', 'the move to Failed rolled back with the failure');
      assert.deepEqual((await findJobs(api.database.db, { singletonKey: analysisJobKey(id) })).map((j) => j.state), ['running'], 'the job still holds its lease');
      assert.equal((await api.get(`/v1/orders/${id}`, 'editor')).statusCode, 200);
      await advanceJobTime(api.database.db, 30_001);
      assert.equal(await single.runDue(), 1, 'claimed again after the lease');
      assert.equal(hookRuns, 2);
      const o = await get(id);
      assert.equal(o.order_state, 'Failed');
      const events = await listOrderEvents(api.database.db, id);
      assert.deepEqual(events.map((e) => e.to_state), ['In Progress', 'Failed'], 'one move to Failed');
      assert.match(events[1]!.note!, /^ai_detection failed: Error: attempts exhausted \(.*answered 500/);
      const [job] = await findJobs(api.database.db, { singletonKey: analysisJobKey(id) });
      assert.deepEqual([job!.state, job!.failure_kind], ['failed', 'transient']);
      assert.equal((await findAnalysisFailure(api.database.db, id))?.failure_kind, 'transient');
    });

    it('two overlapping runs of one job (the lease lost, another worker took over) write failed items and annotations once', async () => {
      const flagged = await flatImage('png', 40, 40, '#aa5500');
      // A score under Zeta's 0.7 with a region over its 0.6: ai_detection passes (the order stays In
      // Progress, so nothing but the outcome's own write stops the second run) and lists one item.
      detector.answerFor(flagged, { kind: 'json', body: { score: 0.65, regions: [{ label: 'face', confidence: 0.95, geometry: { type: 'RECTANGLE', x: 0, y: 0, w: 0.5, h: 0.5 } }] } });
      const storage = new LocalDirectoryStorage(api.dir);
      // ai_detection of both runs waits at a barrier until both have their answer, so both write.
      let arrived = 0;
      let release!: () => void;
      const bothArrived = new Promise<void>((r) => (release = r));
      const checks = analysisChecks({ db: api.database.db, detection: detectionService() }).map((check) =>
        check.name !== 'ai_detection'
          ? check
          : {
              ...check,
              run: async (ctx: Parameters<typeof check.run>[0]) => {
                const result = await check.run(ctx);
                if (++arrived === 2) release();
                await bothArrived;
                return result;
              },
            },
      );
      const handlers = () => jobHandlers({ db: api.database.db, clock, storage, checks, concurrency: 1 });
      const first = new Worker({ db: api.database.db, concurrency: 1, leaseMs: 30_000, workerId: 'first', handlers: handlers() });
      const second = new Worker({ db: api.database.db, concurrency: 1, leaseMs: 30_000, workerId: 'second', handlers: handlers() });
      await drain();
      const id = await order(flagged, 'twice.png');
      const running = first.runDue();
      for (let i = 0; i < 3000 && arrived < 1; i++) await new Promise((r) => setTimeout(r, 10));
      assert.equal(arrived, 1, 'the first run reached ai_detection');
      await advanceJobTime(api.database.db, 30_001); // its lease ran out (a paused process, say)
      const [ranFirst, ranSecond] = await Promise.all([running, second.runDue()]);
      assert.deepEqual([ranFirst, ranSecond, arrived], [1, 1, 2]);
      const o = await get(id);
      assert.equal(o.order_state, 'In Progress');
      assert.deepEqual(o.analysis_failed_items!.map((i) => i.name), ['face']);
      assert.deepEqual(o.annotations!.map((a) => a.id), ['ai_detection-1']);
      assert.deepEqual(o.analysis_list, passed(...ALL_CHECKS));
      const events = await listOrderEvents(api.database.db, id);
      assert.deepEqual(events.map((e) => e.to_state), ['In Progress']);
    });
  });
}
