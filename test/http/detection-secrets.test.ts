/**
 * The detection service's secrets stay secret, and what it is sent carries no metadata, end to end:
 * orders created through the API are analysed by the real composition root (`createServices`, the
 * detection adapter built from the configuration) against a detection server on 127.0.0.1 that fails.
 * Afterwards neither the bearer key nor the token in the URL's query string is in any row of any table
 * (`jobs.last_error`, `order_events` and the orders included) or in the process log (pino at `trace`),
 * and the bytes the server received hold no EXIF GPS or XMP. Credentials in the URL itself are refused
 * by the configuration before anything runs (src/config.detection.test.ts). PGlite and PostgreSQL.
 */
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { Writable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import exifr from 'exifr';
import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import pino from 'pino';
import sharp from 'sharp';
import { createServices, type Services } from '../../src/app/services.js';
import { loadConfig } from '../../src/config.js';
import { SCOPES, type OrderT } from '../../src/contract/schemas.js';
import { createClient } from '../../src/domain/api-clients/client-admin.js';
import { ManualClock } from '../../src/domain/time/clock.js';
import { buildServer } from '../../src/app/http-server.js';
import { createServiceMetrics } from '../../src/metrics/service-metrics.js';
import type { DatabaseHandle } from '../../src/storage/database.js';
import { noisePng } from '../helpers/analysis-files.js';
import { databaseTargets } from '../helpers/database.js';
import { startDetectionServer, type DetectionServer } from '../helpers/detection-server.js';
import { ACME, loadStandardFixture, temporaryObjectStorage, USERS } from '../helpers/fixtures.js';
import { xmpWith } from '../helpers/metadata-files.js';
import { obtainToken } from './api-harness.js';

const KEY = 'detection-key-7c1e55aa90f3';
const QUERY_SECRET = 'qs-token-31337beef';
const GPS = { GPSLatitudeRef: 'N', GPSLatitude: '48/1 51/1 2964/100', GPSLongitudeRef: 'E', GPSLongitude: '2/1 17/1 4032/100' };

/** Every row of every table of the database, as text (byte columns included, as Latin-1). */
async function everyRow(database: DatabaseHandle): Promise<string> {
  const tables = await sql<{ table_name: string }>`SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'`.execute(database.db);
  assert.ok(tables.rows.some((t) => t.table_name === 'jobs') && tables.rows.some((t) => t.table_name === 'order_events'));
  const dump: string[] = [];
  for (const { table_name } of tables.rows) {
    const rows = await sql<Record<string, unknown>>`SELECT * FROM ${sql.table(table_name)}`.execute(database.db);
    dump.push(JSON.stringify({ [table_name]: rows.rows }, (_k, v: unknown) => (v instanceof Uint8Array ? Buffer.from(v).toString('latin1') : v)));
  }
  return dump.join('\n');
}

for (const target of databaseTargets()) {
  describe(`detection service secrets and metadata on ${target.name}`, () => {
    const clock = new ManualClock(Date.UTC(2030, 0, 1));
    let database: DatabaseHandle;
    let detector: DetectionServer;
    let services: Services;
    let app: FastifyInstance;
    let token: string;
    let dir: string;
    let removeDir: () => void = () => {};
    const log: string[] = [];

    before(async () => {
      database = await target.open();
      const objects = temporaryObjectStorage();
      dir = objects.dir;
      removeDir = () => rmSync(objects.dir, { recursive: true, force: true });
      await loadStandardFixture(database, objects.storage);
      // Anything it has no answer for gets a 503: the service is down.
      detector = await startDetectionServer({ key: KEY, defaultAnswer: { kind: 'status', status: 503 } });
      const config = loadConfig({
        CERTDESK_ENV: 'test',
        LOG_LEVEL: 'trace',
        PUBLIC_BASE_URL: 'https://api.certdesk.test',
        ISSUER_URL: 'https://api.certdesk.test',
        DATA_DIR: dir,
        OBJECT_STORAGE_DIR: dir,
        AI_DETECTION_URL: `${detector.url}?token=${QUERY_SECRET}`,
        AI_DETECTION_KEY: KEY,
        AI_DETECTION_TIMEOUT_MS: '10000',
      });
      const sink = new Writable({ write: (chunk: Buffer, _enc, done) => { log.push(chunk.toString('utf8')); done(); } });
      services = await createServices({
        config,
        database,
        clock,
        log: pino({ level: 'trace' }, sink),
        metrics: createServiceMetrics({ processMetrics: false }),
        jobs: { backoffMs: () => 1000 },
      });
      app = await buildServer(services);
      await app.ready();
      const client = await createClient(database.db, { organizationId: ACME.id, userEmail: USERS.editor.email, scopes: [SCOPES.read, SCOPES.write] });
      token = await obtainToken(app, client.client_id, client.client_secret);
    });
    after(async () => {
      await app?.close();
      await services?.close();
      await detector?.close();
      await database?.close();
      removeDir();
    });

    async function order(bytes: Buffer, fileName: string): Promise<string> {
      const auth = { authorization: `Bearer ${token}` };
      const ticket = await app.inject({ method: 'POST', url: '/v1/uploads', headers: auth, payload: { file_name: fileName, content_type: 'application/octet-stream', size: bytes.length } });
      assert.equal(ticket.statusCode, 201, ticket.body);
      const { upload_url, upload_headers, upload_id } = ticket.json() as { upload_url: string; upload_headers: Record<string, string>; upload_id: string };
      const put = await app.inject({ method: 'PUT', url: upload_url.replace('https://api.certdesk.test', ''), headers: upload_headers, payload: bytes });
      assert.equal(put.statusCode, 200, put.body);
      const created = await app.inject({ method: 'POST', url: '/v1/orders', headers: auth, payload: { upload_id, project_id: ACME.projects.zeta.id, order_title: fileName } });
      assert.equal(created.statusCode, 201, created.body);
      return (created.json() as OrderT).order_id;
    }

    async function state(orderId: string): Promise<string> {
      const res = await app.inject({ method: 'GET', url: `/v1/orders/${orderId}`, headers: { authorization: `Bearer ${token}` } });
      assert.equal(res.statusCode, 200, res.body);
      return (res.json() as OrderT).order_state;
    }

    it('a JPEG with GPS and XMP reaches the service without them; a 503 is recorded without the key or the query string', async () => {
      const photo = await sharp(await noisePng(64, 48)).withExif({ IFD0: { Make: 'TestCam', Artist: 'Jane Doe' }, IFD3: GPS }).withXmp(xmpWith({ simple: { 'photoshop:City': 'Paris' } })).jpeg().toBuffer();
      assert.ok((await exifr.gps(photo))?.latitude, 'the upload carries GPS');
      const id = await order(photo, 'holiday.jpg');
      const sent = detector.bodies.length;
      assert.ok((await services.jobs.worker.runDue()) >= 1);
      assert.equal(detector.bodies.length, sent + 1, 'the service was asked once');
      const body = detector.bodies.at(-1)!;
      const meta = await sharp(body).metadata();
      assert.deepEqual([meta.format, meta.width, meta.height, meta.exif, meta.xmp, await exifr.gps(body).catch(() => undefined)], ['jpeg', 64, 48, undefined, undefined, undefined]);
      assert.ok(!body.includes('TestCam') && !body.includes('Paris'));
      assert.equal(await state(id), 'In Progress', 'a transient failure leaves the order to its retries');
      const errors = await sql<{ last_error: string | null }>`SELECT last_error FROM jobs WHERE payload->>'order_id' = ${id}`.execute(database.db);
      assert.match(errors.rows[0]?.last_error ?? '', /detection service http:\/\/127\.0\.0\.1:\d+\/v1\/detect answered 503/);
    });

    it('a 422 refusal fails the order; neither the key nor the query string is in any table or in the log', async () => {
      const image = await noisePng(50, 40);
      detector.answerFor(image, { kind: 'status', status: 422 });
      const id = await order(image, 'refused.png');
      for (let round = 0; round < 20 && (await state(id)) === 'In Progress'; round++) {
        await services.jobs.worker.runDue();
        clock.advance(60_000);
      }
      assert.equal(await state(id), 'Failed');
      const rows = await everyRow(database);
      assert.match(rows, /ai_detection failed: DetectionRefusedError: detection service http:\/\/127\.0\.0\.1:\d+\/v1\/detect answered 422: it refuses this image/);
      for (const secret of [KEY, QUERY_SECRET, 'token=']) {
        assert.ok(!rows.includes(secret), `${secret} is in a database row`);
        assert.ok(!log.join('').includes(secret), `${secret} is in the log`);
      }
      assert.ok(log.length > 0, 'the log was captured');
      assert.ok(detector.requests.every((r) => r.authorization === `Bearer ${KEY}`), 'the key went in the Authorization header');
    });
  });
}
