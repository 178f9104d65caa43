/**
 * The write side end to end, through the real application: POST /v1/uploads, the presigned PUT served by
 * `serve`, POST /v1/orders, GET /v1/orders/{id}, POST /v1/orders/{id}/responses, the analysis job moving
 * the order, role rules and bad inputs. Real files (PNG, JPEG, WebP, TIFF, renamed text), real tokens, an
 * injected clock. On PGlite and PostgreSQL.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { SCOPES, type OrderStatsT, type OrderT } from '../../src/contract/schemas.js';
import { sql } from 'kysely';
import { changeOrder } from '../../src/domain/orders/order-lifecycle.service.js';
import { listOrderEvents } from '../../src/domain/orders/order-lifecycle.repository.js';
import { createClient } from '../../src/domain/api-clients/client-admin.js';
import { ManualClock } from '../../src/domain/time/clock.js';
import { advanceJobTime } from '../helpers/job-time.js';
import { jobHandlers } from '../../src/jobs/job-runtime.js';
import { Worker } from '../../src/jobs/worker.js';
import { LocalDirectoryStorage } from '../../src/storage/object-storage/index.js';
import { databaseTargets } from '../helpers/database.js';
import { ACME, GLOBEX, USERS } from '../helpers/fixtures.js';
import { jpegBytes, pngBytes, textBytes, tiffBytes, truncatedPngBytes, webpBytes } from '../helpers/images.js';
import sharp from 'sharp';
import { obtainToken, startApi, type Api } from './api-harness.js';

type Writer = 'admin' | 'editor' | 'viewer' | 'loner';

/** A clean accepted file: every check without configuration passes (no detection service here). */
const CLEAN_ANALYSIS = ['file_type', 'metadata', 'layer_check'].map((analysis_type) => ({ analysis_type, analysis_passed: true }));

for (const target of databaseTargets()) {
  describe(`order intake on ${target.name}`, () => {
    let api: Api & { dir: string };
    let worker: Worker;
    const clock = new ManualClock(Date.UTC(2030, 0, 1));
    const writeTokens = {} as Record<Writer, string>;

    before(async () => {
      api = await startApi(target, undefined, { clock });
      for (const name of ['editor', 'viewer', 'loner'] as const) {
        const c = await createClient(api.database.db, { organizationId: ACME.id, userEmail: USERS[name].email, scopes: [SCOPES.read, SCOPES.write] });
        writeTokens[name] = await obtainToken(api.app, c.client_id, c.client_secret);
      }
      writeTokens.admin = api.tokens.admin;
      worker = new Worker({
        db: api.database.db,
        concurrency: 4,
        handlers: jobHandlers({ db: api.database.db, clock, storage: new LocalDirectoryStorage(api.dir), concurrency: 4 }),
      });
    });
    after(() => api.close());

    /** Runs every due job (earlier tests leave orders whose analysis nobody ran yet). */
    const runAll = async () => {
      while ((await worker.runDue()) > 0);
    };
    const op = (name: string) => api.openapi.operationIds().find((id) => id.startsWith(`${name}_v1_`))!;
    const auth = (token: string, extra: Record<string, string> = {}) => ({ authorization: `Bearer ${token}`, ...extra });

    async function announce(token: string, body: Record<string, unknown>, headers: Record<string, string> = {}) {
      return api.app.inject({ method: 'POST', url: '/v1/uploads', headers: auth(token, headers), payload: body });
    }

    /** POST /v1/uploads then the PUT; returns the upload id. */
    async function upload(as: Writer, bytes: Buffer, fileName = 'art.png', contentType = 'image/png'): Promise<string> {
      const res = await announce(writeTokens[as], { file_name: fileName, content_type: contentType, size: bytes.length });
      assert.equal(res.statusCode, 201, res.body);
      api.openapi.assertResponse(op('create_upload'), 201, res.json());
      const ticket = res.json() as { upload_id: string; upload_url: string; upload_headers: Record<string, string> };
      const put = await api.app.inject({ method: 'PUT', url: ticket.upload_url.replace('https://api.certdesk.test', ''), headers: ticket.upload_headers, payload: bytes });
      assert.equal(put.statusCode, 200, put.body);
      return ticket.upload_id;
    }

    async function create(as: Writer, body: Record<string, unknown>, headers: Record<string, string> = {}) {
      return api.app.inject({ method: 'POST', url: '/v1/orders', headers: auth(writeTokens[as], headers), payload: body });
    }

    async function stats(as: Writer, projectId: string): Promise<OrderStatsT> {
      return ((await api.get(`/v1/orders?project_id=${encodeURIComponent(projectId)}&limit=1`, as === 'admin' ? 'admin' : as)).json() as { order_stats: OrderStatsT }).order_stats;
    }

    async function getOrder(as: Writer, orderId: string): Promise<OrderT> {
      const res = await api.get(`/v1/orders/${orderId}`, as);
      assert.equal(res.statusCode, 200, res.body);
      api.openapi.assertResponse(op('get_order'), 200, res.json());
      return res.json() as OrderT;
    }

    it('creates a personal order from an uploaded PNG; analysis recognizes it and the order waits for review', async () => {
      const before = await stats('loner', 'Personal Certificates');
      const uploadId = await upload('loner', pngBytes(), 'sketch.png');
      const res = await create('loner', { upload_id: uploadId, project_id: null, order_title: 'My sketch', tags: ['ink'] });
      assert.equal(res.statusCode, 201, res.body);
      api.openapi.assertResponse(op('create_order'), 201, res.json());
      const order = res.json() as OrderT;
      assert.equal(res.headers.location, `/v1/orders/${order.order_id}`);
      assert.equal(order.order_state, 'In Progress');
      assert.equal(order.asset_name, 'sketch.png');
      assert.equal(order.asset_id, uploadId);
      assert.equal(order.email, USERS.loner.email);
      assert.equal(order.username, USERS.loner.username);
      assert.equal(order.project, null);
      assert.deepEqual(order.tags, ['ink']);
      assert.deepEqual(order.analysis_list, []);
      assert.equal(order.creation_time, new Date(Date.UTC(2030, 0, 1)).toISOString());
      // The 201 body is the order exactly as it is read afterwards.
      assert.deepEqual(await getOrder('loner', order.order_id), order);
      const afterCreate = await stats('loner', 'Personal Certificates');
      assert.equal(afterCreate.total_in_progress, before.total_in_progress + 1);

      assert.equal(await worker.runDue(), 1);
      const analyzed = await getOrder('loner', order.order_id);
      assert.equal(analyzed.order_state, 'In Progress');
      assert.deepEqual(analyzed.analysis_list, CLEAN_ANALYSIS);
      // The preview is a real JPEG behind a presigned URL.
      assert.match(String(analyzed.asset_preview_url), /^https:\/\/api\.certdesk\.test\/objects\/orgs\/[0-9a-f-]+\/orders\/[0-9a-f-]+\/preview\.jpg\?expires=\d+&signature=/);
      const preview = await api.app.inject({ url: analyzed.asset_preview_url!.replace('https://api.certdesk.test', '') });
      assert.equal(preview.statusCode, 200);
      assert.equal(preview.headers['content-type'], 'image/jpeg');
      assert.deepEqual(await sharp(preview.rawPayload).metadata().then((m) => [m.format, m.width, m.height]), ['jpeg', 8, 6]);
      const events = await listOrderEvents(api.database.db, order.order_id);
      assert.deepEqual(events.map((e) => [e.type, e.from_state, e.to_state, e.actor_kind, e.actor, e.actor_client_id]), [
        ['created', null, 'In Progress', 'user', USERS.loner.email, events[0]!.actor_client_id],
        ['analysis_completed', null, null, 'system', 'certdesk:analysis', null],
      ]);
      assert.match(events[0]!.actor_client_id ?? '', /./, 'the API client the user acted through is kept');
    });

    for (const [name, bytes, type] of [
      ['JPEG', () => jpegBytes(), 'image/jpeg'],
      ['WebP', () => webpBytes(), 'image/webp'],
      ['TIFF', () => tiffBytes(), 'image/tiff'],
    ] as const) {
      it(`accepts a ${name} in a project the editor may write to`, async () => {
        const uploadId = await upload('editor', await bytes(), `art.${name.toLowerCase()}`, type);
        const res = await create('editor', { upload_id: uploadId, project_id: ACME.projects.zeta.id, order_title: name });
        assert.equal(res.statusCode, 201, res.body);
        const order = res.json() as OrderT;
        assert.deepEqual(order.project, { id: ACME.projects.zeta.id, name: 'Zeta', userRole: 'editor' });
        assert.deepEqual(await getOrder('editor', order.order_id), order, 'the 201 body is the order as read afterwards');
        await runAll();
        assert.deepEqual((await getOrder('editor', order.order_id)).analysis_list, CLEAN_ANALYSIS);
      });
    }

    it('ends a renamed text file as Unsupported File, counted at once', async () => {
      const before = await stats('admin', ACME.projects.beta.id);
      const uploadId = await upload('editor', textBytes(), 'totally-an-image.png');
      const order = (await create('editor', { upload_id: uploadId, project_id: ACME.projects.beta.id, order_title: 'renamed' })).json() as OrderT;
      await runAll();
      const analyzed = await getOrder('editor', order.order_id);
      assert.equal(analyzed.order_state, 'Unsupported File');
      assert.deepEqual(analyzed.analysis_list, [{ analysis_type: 'file_type', analysis_passed: false }]);
      const afterStats = await stats('admin', ACME.projects.beta.id);
      assert.equal(afterStats.total_unsupported, before.total_unsupported + 1);
      assert.equal(afterStats.total_in_progress, before.total_in_progress);
      assert.equal(afterStats.total_orders, before.total_orders + 1);
      const events = await listOrderEvents(api.database.db, order.order_id);
      assert.deepEqual(events.map((e) => [e.from_state, e.to_state, e.actor_kind, e.actor_id]), [
        [null, 'In Progress', 'user', events[0]!.actor_id],
        ['In Progress', 'Unsupported File', 'system', 'analysis'],
      ]);
    });

    it('a truncated image fails its preview on every attempt and ends as Failed, the failing check recorded', async () => {
      const backoff = new Worker({
        db: api.database.db,
        concurrency: 4,
        handlers: jobHandlers({ db: api.database.db, clock, storage: new LocalDirectoryStorage(api.dir), concurrency: 4 }),
      });
      await runAll();
      const uploadId = await upload('loner', truncatedPngBytes(), 'cut.png');
      const order = (await create('loner', { upload_id: uploadId, project_id: null, order_title: 'truncated' })).json() as OrderT;
      // Each attempt runs once its backoff (at most 12 h) passed on the queue's (database) clock, until the
      // order fails: at once when the decoder reports bad bytes as permanent, else after the 25 attempts.
      let state = 'In Progress';
      for (let attempt = 1; attempt <= 25 && state === 'In Progress'; attempt++) {
        assert.equal(await backoff.runDue(), 1, `attempt ${attempt}`);
        state = (await getOrder('loner', order.order_id)).order_state;
        await advanceJobTime(api.database.db, 12 * 3_600_000);
      }
      assert.equal(state, 'Failed');
      const failed = await getOrder('loner', order.order_id);
      assert.deepEqual(failed.analysis_list, [
        { analysis_type: 'file_type', analysis_passed: true },
        { analysis_type: 'metadata', analysis_passed: true },
        { analysis_type: 'layer_check', analysis_passed: false },
      ]);
      assert.equal(failed.asset_preview_url, null);
      const events = await listOrderEvents(api.database.db, order.order_id);
      assert.deepEqual(events.map((e) => e.to_state), ['In Progress', 'Failed']);
      assert.match(events[1]!.note!, /^layer_check failed: /);
    });

    it('role rules: viewer 403 in the project, anyone for a personal order, invisible project 404, admin anywhere', async () => {
      const viewerUpload = await upload('viewer', pngBytes());
      const refused = await create('viewer', { upload_id: viewerUpload, project_id: ACME.projects.zeta.id, order_title: 'x' });
      assert.equal(refused.statusCode, 403);
      assert.equal(typeof (refused.json() as { detail: unknown }).detail, 'string');
      // The refused attempt did not use the upload: a personal order may take it.
      assert.equal((await create('viewer', { upload_id: viewerUpload, project_id: null, order_title: 'mine' })).statusCode, 201);
      const lonerUpload = await upload('loner', pngBytes());
      for (const projectId of [ACME.projects.zeta.id, GLOBEX.projects.alpha.id, '00000000-0000-4000-8000-000000000000']) {
        const res = await create('loner', { upload_id: lonerUpload, project_id: projectId, order_title: 'x' });
        assert.equal(res.statusCode, 404, projectId);
        assert.deepEqual(Object.keys(res.json() as object), ['detail']);
      }
      const adminUpload = await upload('admin', pngBytes());
      const adminRes = await create('admin', { upload_id: adminUpload, project_id: ACME.projects.ecran.id, order_title: 'admin' });
      assert.equal(adminRes.statusCode, 201);
      assert.equal((adminRes.json() as OrderT).project?.userRole, 'admin');
    });

    it('a read-only token is 403 insufficient_scope on every write route', async () => {
      for (const [url, payload] of [
        ['/v1/uploads', { file_name: 'a.png', content_type: 'image/png', size: 1 }],
        ['/v1/orders', { upload_id: '00000000-0000-4000-8000-000000000000', project_id: null, order_title: 'x' }],
        ['/v1/orders/acme-0001/responses', { message: 'hi' }],
      ] as const) {
        const res = await api.app.inject({ method: 'POST', url, headers: auth(api.tokens.editor), payload });
        assert.equal(res.statusCode, 403, url);
        assert.match(String(res.headers['www-authenticate']), /error="insufficient_scope", scope="enterprise-api-access\/write"/);
      }
      assert.equal((await api.app.inject({ method: 'POST', url: '/v1/uploads', payload: {} })).statusCode, 401);
    });

    it('a write in another media type is 415 {"detail"}, text/plain included, and creates nothing', async () => {
      const before = await stats('loner', 'All Projects');
      for (const url of ['/v1/uploads', '/v1/orders', '/v1/orders/acme-0001/responses']) {
        for (const [type, payload] of [['text/plain', ''], ['text/plain', '{"order_title":"x"}'], ['application/xml', '<a/>']] as const) {
          const res = await api.app.inject({ method: 'POST', url, headers: auth(writeTokens.loner, { 'content-type': type }), payload });
          assert.equal(res.statusCode, 415, `${url} ${type} ${res.body}`);
          assert.deepEqual(res.json(), { detail: 'Unsupported Media Type' });
        }
      }
      assert.deepEqual(await stats('loner', 'All Projects'), before);
    });

    it('refuses an oversized announcement and unknown or badly typed fields, pydantic-style, in the caller\'s language', async () => {
      const big = await announce(writeTokens.loner, { file_name: 'a.png', content_type: 'image/png', size: 200 * 1024 * 1024 + 1 });
      assert.equal(big.statusCode, 422);
      assert.deepEqual(big.json(), {
        detail: [{ type: 'less_than_equal', loc: ['body', 'size'], msg: 'Input should be less than or equal to 209715200', input: 209715201, ctx: { le: 209715200 } }],
      });
      const extra = await create('loner', { upload_id: '00000000-0000-4000-8000-000000000000', project_id: null, order_title: 'x', colour: 'red' }, { lang: 'fr' });
      assert.equal(extra.statusCode, 422);
      assert.deepEqual(extra.json(), {
        detail: [{ type: 'extra_forbidden', loc: ['body', 'colour'], msg: 'Les champs supplémentaires ne sont pas autorisés', input: 'red' }],
      });
      assert.equal(extra.headers['content-language'], 'fr');
      const typed = await create('loner', { upload_id: 'nope', project_id: 5, tags: 'a' });
      assert.equal(typed.statusCode, 422);
      assert.deepEqual(
        (typed.json() as { detail: Array<{ type: string; loc: unknown[] }> }).detail.map((d) => [d.type, d.loc.join('.')]),
        [['uuid_parsing', 'body.upload_id'], ['uuid_parsing', 'body.project_id'], ['missing', 'body.order_title'], ['list_type', 'body.tags']],
      );
      for (const [lang, expected] of [
        ['de', 'Zusätzliche Felder sind nicht erlaubt'],
        ['es', 'No se permiten campos adicionales'],
        ['ja', '追加の入力は許可されていません'],
      ] as const) {
        const res = await create('loner', { upload_id: '00000000-0000-4000-8000-000000000000', project_id: null, order_title: 'x', colour: 1 }, { lang });
        const msg = (res.json() as { detail: Array<{ msg: string }> }).detail[0]!.msg;
        assert.equal(msg, expected, lang);
        assert.equal(res.headers['content-language'], lang);
      }
    });

    it('an upload with no bytes yet, used, expired, unknown or someone else\'s is 422 on ["body","upload_id"]', async () => {
      const problem = async (as: Writer, uploadId: string) => {
        const res = await create(as, { upload_id: uploadId, project_id: null, order_title: 'x' });
        assert.equal(res.statusCode, 422, res.body);
        const detail = (res.json() as { detail: Array<{ loc: unknown[]; type: string; input: unknown; ctx: { reason: string } }> }).detail;
        assert.equal(detail.length, 1);
        assert.deepEqual(detail[0]!.loc, ['body', 'upload_id']);
        assert.equal(detail[0]!.input, uploadId);
        return detail[0]!.ctx.reason;
      };
      const announced = (await announce(writeTokens.loner, { file_name: 'a.png', content_type: 'image/png', size: 10 })).json() as { upload_id: string };
      assert.equal(await problem('loner', announced.upload_id), 'empty');
      const used = await upload('loner', pngBytes());
      assert.equal((await create('loner', { upload_id: used, project_id: null, order_title: 'first' })).statusCode, 201);
      assert.equal(await problem('loner', used), 'used');
      assert.equal(await problem('loner', '00000000-0000-4000-8000-000000000000'), 'unknown');
      const editors = await upload('editor', pngBytes());
      assert.equal(await problem('loner', editors), 'unknown');
      const late = await upload('loner', pngBytes());
      clock.advance(3601_000);
      assert.equal(await problem('loner', late), 'expired');
    });

    it('one upload raced by eight creations becomes one order, one event, one job; the others are 422 used', async () => {
      const before = await stats('loner', 'Personal Certificates');
      const raced = await upload('loner', pngBytes());
      const answers = await Promise.all(Array.from({ length: 8 }, (_, i) => create('loner', { upload_id: raced, project_id: null, order_title: `race ${i}` })));
      const created = answers.filter((r) => r.statusCode === 201);
      assert.equal(created.length, 1, answers.map((r) => r.statusCode).join());
      for (const r of answers.filter((a) => a.statusCode !== 201)) {
        assert.equal(r.statusCode, 422, r.body);
        assert.equal((r.json() as { detail: Array<{ ctx: { reason: string } }> }).detail[0]!.ctx.reason, 'used');
      }
      const orderId = (created[0]!.json() as OrderT).order_id;
      assert.equal((await listOrderEvents(api.database.db, orderId)).length, 1);
      const jobs = await sql<{ n: number }>`SELECT count(*)::int AS n FROM jobs WHERE payload->>'order_id' = ${orderId}`.execute(api.database.db);
      assert.equal(jobs.rows[0]!.n, 1);
      const after = await stats('loner', 'Personal Certificates');
      assert.equal(after.total_in_progress, before.total_in_progress + 1);
    });

    it('the presigned PUT holds the size and the signature, and writes once', async () => {
      const bytes = pngBytes();
      const ticket = (await announce(writeTokens.loner, { file_name: 'a.png', content_type: 'image/png', size: bytes.length })).json() as { upload_url: string; upload_id: string };
      const url = ticket.upload_url.replace('https://api.certdesk.test', '');
      const put = (path: string, payload: Buffer) => api.app.inject({ method: 'PUT', url: path, headers: { 'content-type': 'image/png' }, payload });
      assert.equal((await put(url, Buffer.concat([bytes, Buffer.from('x')]))).statusCode, 403, 'one byte more');
      assert.equal((await put(url, bytes.subarray(1))).statusCode, 403, 'one byte less');
      // Change the signature's first character to a different one: a fixed replacement would be a no-op for 1 in 64 signatures.
      const tampered = url.replace(/signature=(.)/, (_m, first: string) => `signature=${first === 'A' ? 'B' : 'A'}`);
      assert.notEqual(tampered, url);
      assert.equal((await put(tampered, bytes)).statusCode, 403, 'bad signature');
      assert.equal((await put(url.replace(/size=\d+/, `size=${bytes.length + 1}`), bytes)).statusCode, 403, 'size changed');
      assert.equal((await put(url, bytes)).statusCode, 200);
      assert.equal((await put(url, bytes)).statusCode, 412, 'written once');
      assert.equal((await create('loner', { upload_id: ticket.upload_id, project_id: null, order_title: 'ok' })).statusCode, 201);
    });

    it('the presigned PUT holds the Content-Type: another type is 403 and stores nothing; a refused replay changes nothing', async () => {
      const bytes = pngBytes();
      const ticket = (await announce(writeTokens.loner, { file_name: 'a.png', content_type: 'image/png', size: bytes.length })).json() as { upload_url: string; upload_id: string; upload_headers: Record<string, string> };
      assert.deepEqual(ticket.upload_headers, { 'Content-Type': 'image/png' });
      const url = ticket.upload_url.replace('https://api.certdesk.test', '');
      const key = `orgs/${ACME.id}/uploads/${ticket.upload_id}`;
      const storage = new LocalDirectoryStorage(api.dir);
      const put = (type: string | undefined, payload: Buffer) => api.app.inject({ method: 'PUT', url, headers: type === undefined ? {} : { 'content-type': type }, payload });
      for (const type of ['text/html', 'image/svg+xml', 'image/png; charset=utf-8', undefined]) {
        const refused = await put(type, bytes);
        assert.equal(refused.statusCode, 403, String(type));
        assert.deepEqual(Object.keys(refused.json() as object), ['detail']);
        assert.equal(await storage.head(key), null, 'nothing stored');
      }
      assert.equal((await put('image/png', bytes)).statusCode, 200);
      // A replay, refused (412) or refused for its type (403), never touches the stored bytes or type.
      assert.equal((await put('image/png', Buffer.alloc(bytes.length, 0x3c))).statusCode, 412);
      assert.equal((await put('text/html', bytes)).statusCode, 403);
      assert.deepEqual(await storage.head(key), { size: bytes.length, contentType: 'image/png' });
      const stored = await storage.get(key);
      const chunks: Buffer[] = [];
      for await (const c of stored!.body) chunks.push(c as Buffer);
      assert.deepEqual(Buffer.concat(chunks), bytes);
    });

    it('/objects serves only raster images inline; HTML, SVG and the rest as attachments, always sandboxed', async () => {
      const html = Buffer.from('<html><script>alert(document.cookie)</script></html>');
      const svg = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"/>');
      const png = pngBytes();
      for (const [bytes, type, inline] of [
        [html, 'text/html', false],
        [svg, 'image/svg+xml', false],
        [Buffer.from('%PDF-1.4'), 'application/pdf', false],
        [png, 'image/png', true],
        [await jpegBytes(), 'image/jpeg', true],
        [await webpBytes(), 'image/webp', true],
      ] as const) {
        const uploadId = await upload('loner', bytes, 'x', type);
        const url = api.app.services.objectUrls.presign(`orgs/${ACME.id}/uploads/${uploadId}`).replace('https://api.certdesk.test', '');
        const res = await api.app.inject({ url });
        assert.equal(res.statusCode, 200, type);
        assert.deepEqual(res.rawPayload, bytes);
        assert.equal(res.headers['content-type'], inline ? type : 'application/octet-stream', type);
        assert.equal(res.headers['content-disposition'], inline ? undefined : 'attachment', type);
        assert.equal(res.headers['x-content-type-options'], 'nosniff');
        assert.equal(res.headers['content-security-policy'], "default-src 'none'; sandbox");
      }
    });

    it('GET /v1/orders/{id} follows visibility: 404 outside the caller\'s view', async () => {
      const uploadId = await upload('editor', pngBytes());
      const order = (await create('editor', { upload_id: uploadId, project_id: ACME.projects.zeta.id, order_title: 'vis' })).json() as OrderT;
      assert.equal((await getOrder('viewer', order.order_id)).project?.userRole, 'viewer');
      assert.equal((await getOrder('admin', order.order_id)).order_id, order.order_id);
      assert.equal((await api.get(`/v1/orders/${order.order_id}`, 'loner')).statusCode, 404);
      assert.equal((await api.get(`/v1/orders/${order.order_id}`, 'other')).statusCode, 404);
      assert.equal((await api.get('/v1/orders/no-such-order', 'admin')).statusCode, 404);
    });

    it('the customer responds to Action Required (201, back to In Progress); in any other state 409', async () => {
      const uploadId = await upload('editor', pngBytes());
      const order = (await create('editor', { upload_id: uploadId, project_id: ACME.projects.zeta.id, order_title: 'respond' })).json() as OrderT;
      const respond = (as: Writer, body: Record<string, unknown>) =>
        api.app.inject({ method: 'POST', url: `/v1/orders/${order.order_id}/responses`, headers: auth(writeTokens[as]), payload: body });
      const early = await respond('editor', { message: 'too early' });
      assert.equal(early.statusCode, 409);
      assert.deepEqual(Object.keys(early.json() as object), ['detail']);
      await changeOrder(api.database.db, clock, order.order_id, { kind: 'system', component: 'test' }, { to: 'Action Required', reason: 'flagged' });
      assert.equal((await respond('viewer', { message: 'not mine to answer' })).statusCode, 403);
      const evidence = await upload('editor', await jpegBytes(), 'wip.jpg', 'image/jpeg');
      const res = await respond('editor', { message: 'Here is my work in progress', upload_ids: [evidence] });
      assert.equal(res.statusCode, 201, res.body);
      assert.equal((res.json() as OrderT).order_state, 'In Progress');
      assert.equal((await respond('editor', { message: 'again' })).statusCode, 409);
      const events = await listOrderEvents(api.database.db, order.order_id);
      assert.deepEqual(events.map((e) => e.to_state), ['In Progress', 'Action Required', 'In Progress']);
      assert.equal(events[2]!.type, 'responded');
      assert.equal(events[2]!.note, 'Here is my work in progress');
      assert.deepEqual(events[2]!.changes, { upload_ids: { before: [], after: [evidence] } });
    });

    it('Idempotency-Key: a retry replays the first response, another body is 422, a running one 409, per client', async () => {
      const uploadId = await upload('loner', pngBytes());
      const body = { upload_id: uploadId, project_id: null, order_title: 'once' };
      const key = `key-${uploadId}`;
      const first = await create('loner', body, { 'idempotency-key': key });
      assert.equal(first.statusCode, 201);
      assert.equal(first.headers['idempotent-replayed'], undefined);
      // Same key, same body (other key order): the stored response, not a second order.
      const again = await create('loner', { order_title: 'once', project_id: null, upload_id: uploadId }, { 'idempotency-key': key });
      assert.equal(again.statusCode, 201);
      assert.equal(again.headers['idempotent-replayed'], 'true');
      assert.equal(again.body, first.body);
      assert.equal(again.headers.location, first.headers.location);
      const count = await api.database.db.selectFrom('orders').select((eb) => eb.fn.countAll<number>().as('n')).where(sql<boolean>`doc->>'asset_id' = ${uploadId}`).executeTakeFirstOrThrow();
      assert.equal(Number(count.n), 1);
      // Same key, another body.
      const changed = await create('loner', { ...body, order_title: 'twice' }, { 'idempotency-key': key });
      assert.equal(changed.statusCode, 422);
      assert.deepEqual((changed.json() as { detail: Array<{ loc: unknown[]; type: string }> }).detail.map((d) => [d.type, d.loc]), [['value_error', ['header', 'Idempotency-Key']]]);
      // The key belongs to the loner's client: another client may use the same key for its own request.
      const editorUpload = await upload('editor', pngBytes());
      assert.equal((await create('editor', { upload_id: editorUpload, project_id: null, order_title: 'editor' }, { 'idempotency-key': key })).statusCode, 201);
      // A first request still running (its record says so): 409.
      const running = await upload('loner', pngBytes());
      const runningKey = `running-${running}`;
      const done = await create('loner', { upload_id: running, project_id: null, order_title: 'r' }, { 'idempotency-key': runningKey });
      assert.equal(done.statusCode, 201);
      await sql`UPDATE idempotency_keys SET state = 'running', locked_until = ${new Date(Date.UTC(2100, 0, 1))} WHERE idempotency_key = ${runningKey}`.execute(api.database.db);
      const conflict = await create('loner', { upload_id: running, project_id: null, order_title: 'r' }, { 'idempotency-key': runningKey });
      assert.equal(conflict.statusCode, 409);
      assert.deepEqual(Object.keys(conflict.json() as object), ['detail']);
      // Keys are 1..255 characters.
      const long = await create('loner', body, { 'idempotency-key': 'k'.repeat(256) });
      assert.equal(long.statusCode, 422);
      assert.deepEqual((long.json() as { detail: Array<{ type: string; loc: unknown[] }> }).detail.map((d) => [d.type, d.loc]), [['string_too_long', ['header', 'Idempotency-Key']]]);
      // After 24 hours the key is free again (the body then meets the used upload: 422 on upload_id).
      clock.advance(24 * 3_600_000 + 1);
      const later = await create('loner', body, { 'idempotency-key': key });
      assert.equal(later.statusCode, 422);
      assert.deepEqual((later.json() as { detail: Array<{ loc: unknown[] }> }).detail[0]!.loc, ['body', 'upload_id']);
    });

    it('Idempotency-Key on POST /v1/uploads replays the same upload', async () => {
      const payload = { file_name: 'a.png', content_type: 'image/png', size: 10 };
      const a = await announce(writeTokens.admin, payload, { 'idempotency-key': 'upload-1' });
      const b = await announce(writeTokens.admin, payload, { 'idempotency-key': 'upload-1' });
      assert.equal(a.statusCode, 201);
      assert.equal(b.headers['idempotent-replayed'], 'true');
      assert.deepEqual(b.json(), a.json());
    });

    async function multipart(as: Writer, fields: Record<string, string | string[]>, file?: { name: string; type: string; bytes: Buffer }, headers: Record<string, string> = {}) {
      const form = new FormData();
      for (const [k, v] of Object.entries(fields)) for (const one of Array.isArray(v) ? v : [v]) form.append(k, one);
      if (file) form.append('file', new Blob([new Uint8Array(file.bytes)], { type: file.type }), file.name);
      const encoded = new Response(form);
      const payload = Buffer.from(await encoded.arrayBuffer());
      return api.app.inject({ method: 'POST', url: '/v1/orders', headers: auth(writeTokens[as], { ...headers, 'content-type': encoded.headers.get('content-type')! }), payload });
    }

    it('multipart/form-data: the file in the request, streamed to storage, same rules and same Order', async () => {
      const res = await multipart('editor', { order_title: 'form', project_id: ACME.projects.zeta.id, tags: ['a', 'b'], ordered_by: '' }, { name: 'form.jpg', type: 'image/jpeg', bytes: await jpegBytes() });
      assert.equal(res.statusCode, 201, res.body);
      api.openapi.assertResponse(op('create_order'), 201, res.json());
      const order = res.json() as OrderT;
      assert.equal(order.asset_name, 'form.jpg');
      assert.deepEqual(order.tags, ['a', 'b']);
      assert.equal(order.ordered_by, null);
      assert.equal(order.project?.userRole, 'editor');
      await runAll();
      assert.deepEqual((await getOrder('editor', order.order_id)).analysis_list, CLEAN_ANALYSIS);
      const personal = await multipart('loner', { order_title: 'personal', project_id: '' }, { name: 'p.png', type: 'image/png', bytes: pngBytes() });
      assert.equal(personal.statusCode, 201, personal.body);
      assert.equal((personal.json() as OrderT).project, null);
    });

    it('multipart/form-data: missing file, unknown field, viewer, too large', async () => {
      const noFile = await multipart('loner', { order_title: 'x', colour: 'red' });
      assert.equal(noFile.statusCode, 422);
      assert.deepEqual((noFile.json() as { detail: Array<{ type: string; loc: unknown[] }> }).detail.map((d) => [d.type, d.loc]), [
        ['missing', ['body', 'file']],
        ['extra_forbidden', ['body', 'colour']],
      ]);
      const noTitle = await multipart('loner', {}, { name: 'a.png', type: 'image/png', bytes: pngBytes() });
      assert.deepEqual((noTitle.json() as { detail: Array<{ type: string; loc: unknown[] }> }).detail.map((d) => [d.type, d.loc]), [['missing', ['body', 'order_title']]]);
      const viewer = await multipart('viewer', { order_title: 'x', project_id: ACME.projects.zeta.id }, { name: 'a.png', type: 'image/png', bytes: pngBytes() });
      assert.equal(viewer.statusCode, 403);
      const ordersBefore = await api.database.db.selectFrom('orders').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
      const uploadsBefore = await api.database.db.selectFrom('uploads').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
      const huge = await multipart('loner', { order_title: 'huge' }, { name: 'huge.png', type: 'image/png', bytes: Buffer.alloc(25 * 1024 * 1024 + 1, 1) });
      assert.equal(huge.statusCode, 413);
      assert.deepEqual(Object.keys(huge.json() as object), ['detail']);
      const ordersAfter = await api.database.db.selectFrom('orders').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
      const uploadsAfter = await api.database.db.selectFrom('uploads').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
      assert.equal(Number(ordersAfter.n), Number(ordersBefore.n), 'no order');
      assert.equal(Number(uploadsAfter.n), Number(uploadsBefore.n), 'no upload left behind');
    });

    it('multipart/form-data with Idempotency-Key: the same file and fields replay the first order', async () => {
      const file = { name: 'same.png', type: 'image/png', bytes: pngBytes(5, 5) };
      const first = await multipart('loner', { order_title: 'idem' }, file, { 'idempotency-key': 'mp-1' });
      const second = await multipart('loner', { order_title: 'idem' }, file, { 'idempotency-key': 'mp-1' });
      assert.equal(first.statusCode, 201);
      assert.equal(second.headers['idempotent-replayed'], 'true');
      assert.equal(second.body, first.body);
      const other = await multipart('loner', { order_title: 'idem' }, { ...file, bytes: pngBytes(6, 5) }, { 'idempotency-key': 'mp-1' });
      assert.equal(other.statusCode, 422);
    });
  });
}
