/**
 * The write side against storage filling and poisoning, and honest Idempotency-Keys, through the real
 * application on PGlite and PostgreSQL, with the local directory and with S3 (s3rver):
 * - refused requests and idempotent replays store no byte (objects counted in storage);
 * - multipart fields come before the file; a file first, or a part after it, stores nothing;
 * - only final outcomes are stored under a key; the key commits with the order or not at all; the multipart
 *   fingerprint covers the file's name and content;
 * - per-user limits on outstanding uploads and on upload creation: 429 with `Retry-After`.
 */
import assert from 'node:assert/strict';
import { readdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { sql } from 'kysely';
import { SCOPES, type OrderT } from '../../src/contract/schemas.js';
import { createClient } from '../../src/domain/api-clients/client-admin.js';
import { ManualClock } from '../../src/domain/time/clock.js';
import { LocalDirectoryStorage, type ObjectStorage } from '../../src/storage/object-storage/index.js';
import { databaseTargets, type DatabaseTarget } from '../helpers/database.js';
import { ACME, USERS } from '../helpers/fixtures.js';
import { pngBytes } from '../helpers/images.js';
import { startS3Server, type TestS3Server } from '../helpers/s3-server.js';
import { obtainToken, startApi, type Api } from './api-harness.js';

type Part = { name: string; value: string } | { name: string; file: { name: string; type: string; bytes: Buffer } };

/** A multipart body with its parts in exactly the given order. */
async function form(parts: Part[]): Promise<{ payload: Buffer; contentType: string }> {
  const data = new FormData();
  for (const p of parts) {
    if ('value' in p) data.append(p.name, p.value);
    else data.append(p.name, new Blob([new Uint8Array(p.file.bytes)], { type: p.file.type }), p.file.name);
  }
  const encoded = new Response(data);
  return { payload: Buffer.from(await encoded.arrayBuffer()), contentType: encoded.headers.get('content-type')! };
}

interface StorageUnderTest {
  name: string;
  /** The storage the app uses (undefined: the harness's local directory). */
  open(): Promise<ObjectStorage | undefined>;
  /** How many upload objects of ACME are stored. */
  countUploads(api: Api & { dir: string }): Promise<number>;
  close(): Promise<void>;
}

function localStorage(): StorageUnderTest {
  return {
    name: 'local directory',
    open: async () => undefined,
    countUploads: async (api) => {
      try {
        return readdirSync(path.join(api.dir, 'orgs', ACME.id, 'uploads')).length;
      } catch {
        return 0;
      }
    },
    close: async () => undefined,
  };
}

function s3Storage(): StorageUnderTest {
  let server: TestS3Server;
  let client: S3Client;
  return {
    name: 'S3 (s3rver)',
    open: async () => {
      server = await startS3Server();
      client = new S3Client({ endpoint: server.endpoint, region: 'us-east-1', forcePathStyle: true, credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' } });
      return server.storage('hardening');
    },
    countUploads: async () => {
      const out = await client.send(new ListObjectsV2Command({ Bucket: server.bucket, Prefix: `hardening/orgs/${ACME.id}/uploads/` }));
      return out.KeyCount ?? 0;
    },
    close: async () => {
      client.destroy();
      await server.close();
    },
  };
}

function suite(target: DatabaseTarget, storageUnderTest: StorageUnderTest): void {
  describe(`intake hardening on ${target.name}, ${storageUnderTest.name}`, () => {
    let api: Api & { dir: string };
    // The real time: S3 presigned URLs are valid for at most a week from the real now.
    const clock = new ManualClock(Date.now());
    const tokens = {} as Record<'editor' | 'viewer' | 'loner', string>;

    before(async () => {
      const storage = await storageUnderTest.open();
      api = await startApi(target, undefined, { clock, ...(storage ? { storage } : {}) });
      for (const name of ['editor', 'viewer', 'loner'] as const) {
        const c = await createClient(api.database.db, { organizationId: ACME.id, userEmail: USERS[name].email, scopes: [SCOPES.read, SCOPES.write] });
        tokens[name] = await obtainToken(api.app, c.client_id, c.client_secret);
      }
    });
    after(async () => {
      await api.close();
      await storageUnderTest.close();
      rmSync(api.dir, { recursive: true, force: true });
    });

    const auth = (who: keyof typeof tokens, extra: Record<string, string> = {}) => ({ authorization: `Bearer ${tokens[who]}`, ...extra });
    const count = async (table: 'orders' | 'uploads') =>
      Number((await api.database.db.selectFrom(table).select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n);
    const keyState = async (key: string) =>
      (await sql<{ state: string; response_status: number | null }>`SELECT state, response_status FROM idempotency_keys WHERE idempotency_key = ${key}`.execute(api.database.db)).rows[0];

    async function multipart(who: keyof typeof tokens, parts: Part[], headers: Record<string, string> = {}) {
      const { payload, contentType } = await form(parts);
      return api.app.inject({ method: 'POST', url: '/v1/orders', headers: auth(who, { ...headers, 'content-type': contentType }), payload });
    }
    const png = (name = 'art.png', bytes = pngBytes()) => ({ name: 'file', file: { name, type: 'image/png', bytes } });

    it('refused multipart requests store nothing: viewer, unknown project, invalid fields, file first, part after the file', async () => {
      const before = { objects: await storageUnderTest.countUploads(api), uploads: await count('uploads'), orders: await count('orders') };
      const cases: Array<[string, keyof typeof tokens, Part[], number]> = [
        ['viewer in a project', 'viewer', [{ name: 'order_title', value: 'x' }, { name: 'project_id', value: ACME.projects.zeta.id }, png()], 403],
        ['unknown project', 'loner', [{ name: 'order_title', value: 'x' }, { name: 'project_id', value: '00000000-0000-4000-8000-000000000000' }, png()], 404],
        ['invalid field', 'loner', [{ name: 'order_title', value: 'x' }, { name: 'colour', value: 'red' }, png()], 422],
        ['file first', 'loner', [png(), { name: 'order_title', value: 'x' }], 422],
        ['part after the file', 'loner', [{ name: 'order_title', value: 'x' }, png(), { name: 'tags', value: 'late' }], 422],
      ];
      for (const [name, who, parts, status] of cases) {
        const res = await multipart(who, parts);
        assert.equal(res.statusCode, status, `${name}: ${res.body}`);
      }
      const fileFirst = await multipart('loner', [png(), { name: 'order_title', value: 'x' }]);
      assert.deepEqual((fileFirst.json() as { detail: Array<{ type: string; loc: unknown[] }> }).detail.map((d) => [d.type, d.loc]), [['missing', ['body', 'order_title']]]);
      const late = await multipart('loner', [{ name: 'order_title', value: 'x' }, png(), { name: 'tags', value: 'late' }]);
      assert.deepEqual((late.json() as { detail: Array<{ type: string; loc: unknown[]; msg: string }> }).detail.map((d) => [d.type, d.loc, d.msg]), [
        ['extra_forbidden', ['body', 'tags'], 'Fields must come before the file in the form'],
      ]);
      assert.deepEqual({ objects: await storageUnderTest.countUploads(api), uploads: await count('uploads'), orders: await count('orders') }, before);
      // The same form in the documented order works.
      const ok = await multipart('loner', [{ name: 'order_title', value: 'x' }, { name: 'tags', value: 'on time' }, png()]);
      assert.equal(ok.statusCode, 201, ok.body);
      assert.equal(await storageUnderTest.countUploads(api), before.objects + 1);
    });

    it('idempotent replays store nothing; the fingerprint covers the file name and content', async () => {
      const parts = (name: string, bytes = pngBytes(4, 4)) => [{ name: 'order_title', value: 'replayed' }, png(name, bytes)];
      const key = { 'idempotency-key': `mp-${storageUnderTest.name}` };
      const first = await multipart('loner', parts('a.png'), key);
      assert.equal(first.statusCode, 201, first.body);
      const objects = await storageUnderTest.countUploads(api);
      const uploads = await count('uploads');
      for (let i = 0; i < 3; i++) {
        const again = await multipart('loner', parts('a.png'), key);
        assert.equal(again.statusCode, 201);
        assert.equal(again.headers['idempotent-replayed'], 'true');
        assert.equal(again.body, first.body);
        assert.equal(again.headers.location, first.headers.location);
      }
      for (const [name, other] of [['renamed', parts('b.png')], ['other bytes', parts('a.png', pngBytes(5, 4))]] as const) {
        const res = await multipart('loner', [...other], key);
        assert.equal(res.statusCode, 422, name);
        assert.deepEqual((res.json() as { detail: Array<{ loc: unknown[] }> }).detail[0]!.loc, ['header', 'Idempotency-Key'], name);
      }
      assert.equal(await storageUnderTest.countUploads(api), objects, 'no byte stored by replays or refusals');
      assert.equal(await count('uploads'), uploads);
    });

    it('a final refusal is stored and replayed without storing the file again', async () => {
      const key = { 'idempotency-key': `refused-${storageUnderTest.name}` };
      const parts = [{ name: 'order_title', value: 'x' }, { name: 'project_id', value: ACME.projects.zeta.id }, png()];
      const objects = await storageUnderTest.countUploads(api);
      const first = await multipart('viewer', parts, key);
      assert.equal(first.statusCode, 403);
      assert.deepEqual(await keyState(key['idempotency-key']), { state: 'done', response_status: 403 });
      const again = await multipart('viewer', parts, key);
      assert.equal(again.statusCode, 403);
      assert.equal(again.headers['idempotent-replayed'], 'true');
      assert.equal(await storageUnderTest.countUploads(api), objects);
    });

    it('a 422 because the bytes have not arrived yet is not stored: the retry after the PUT creates the order', async () => {
      const bytes = pngBytes();
      const ticket = (await api.app.inject({ method: 'POST', url: '/v1/uploads', headers: auth('loner'), payload: { file_name: 'late.png', content_type: 'image/png', size: bytes.length } })).json() as {
        upload_id: string; upload_url: string; upload_headers: Record<string, string>;
      };
      const key = `late-${ticket.upload_id}`;
      const create = () => api.app.inject({ method: 'POST', url: '/v1/orders', headers: auth('loner', { 'idempotency-key': key }), payload: { upload_id: ticket.upload_id, project_id: null, order_title: 'late' } });
      const early = await create();
      assert.equal(early.statusCode, 422, early.body);
      assert.equal((early.json() as { detail: Array<{ ctx: { reason: string } }> }).detail[0]!.ctx.reason, 'empty');
      assert.equal(await keyState(key), undefined, 'the key was released');
      const put = await fetchPut(ticket.upload_url, ticket.upload_headers, bytes);
      assert.equal(put, 200);
      const later = await create();
      assert.equal(later.statusCode, 201, later.body);
      assert.equal(later.headers['idempotent-replayed'], undefined);
      assert.deepEqual(await keyState(key), { state: 'done', response_status: 201 });
      // A final 422 (the upload is used now) under a new key is stored and replayed.
      const usedKey = `used-${ticket.upload_id}`;
      const used = () => api.app.inject({ method: 'POST', url: '/v1/orders', headers: auth('loner', { 'idempotency-key': usedKey }), payload: { upload_id: ticket.upload_id, project_id: null, order_title: 'again' } });
      assert.equal((await used()).statusCode, 422);
      assert.deepEqual(await keyState(usedKey), { state: 'done', response_status: 422 });
      assert.equal((await used()).headers['idempotent-replayed'], 'true');
    });

    it('a 409 is not stored: the same key runs again once the conflict is gone', async () => {
      const orderId = ((await multipart('editor', [{ name: 'order_title', value: 'respond' }, { name: 'project_id', value: ACME.projects.zeta.id }, png()])).json() as OrderT).order_id;
      const key = `respond-${orderId}`;
      const respond = () => api.app.inject({ method: 'POST', url: `/v1/orders/${orderId}/responses`, headers: auth('editor', { 'idempotency-key': key }), payload: { message: 'here' } });
      assert.equal((await respond()).statusCode, 409);
      assert.equal(await keyState(key), undefined);
      await sql`UPDATE orders SET order_state = 'Action Required', doc = jsonb_set(doc::jsonb, '{order_state}', '"Action Required"')::json WHERE order_id = ${orderId}`.execute(api.database.db);
      assert.equal((await respond()).statusCode, 201);
    });

    it('the key commits with the order: a failure storing the key leaves no order, and the retry creates exactly one', async () => {
      const bytes = pngBytes(3, 3);
      const key = `atomic-${storageUnderTest.name}`;
      const parts = [{ name: 'order_title', value: 'atomic' }, png('atomic.png', bytes)];
      const ordersBefore = await count('orders');
      // Make the completion of this key fail inside the creation's transaction.
      await sql`ALTER TABLE idempotency_keys ADD CONSTRAINT test_no_done CHECK (state <> 'done' OR idempotency_key <> ${sql.lit(key)})`.execute(api.database.db);
      try {
        const failed = await multipart('loner', parts, { 'idempotency-key': key });
        assert.equal(failed.statusCode, 500, failed.body);
      } finally {
        await sql`ALTER TABLE idempotency_keys DROP CONSTRAINT test_no_done`.execute(api.database.db);
      }
      assert.equal(await count('orders'), ordersBefore, 'no order without its key');
      assert.equal(await keyState(key), undefined, 'the key was released');
      const retried = await multipart('loner', parts, { 'idempotency-key': key });
      assert.equal(retried.statusCode, 201, retried.body);
      assert.equal(await count('orders'), ordersBefore + 1);
      assert.deepEqual(await keyState(key), { state: 'done', response_status: 201 });
    });

    // Once per database: the socket's behaviour does not depend on the storage.
    if (storageUnderTest.name === 'local directory') it('over a real socket, a refused 4 MiB form is answered and the next request is served', async () => {
      const address = await api.app.listen({ port: 0, host: '127.0.0.1' });
      const objects = await storageUnderTest.countUploads(api);
      const big = { name: 'file', file: { name: 'big.png', type: 'image/png', bytes: Buffer.alloc(4 * 1024 * 1024, 7) } };
      for (const [who, parts, status] of [
        ['viewer', [{ name: 'order_title', value: 'x' }, { name: 'project_id', value: ACME.projects.zeta.id }, big], 403],
        ['loner', [big, { name: 'order_title', value: 'x' }], 422],
        ['loner', [{ name: 'order_title', value: 'x' }, png()], 201],
      ] as const) {
        const { payload, contentType } = await form([...parts]);
        const res = await fetch(`${address}/v1/orders`, { method: 'POST', headers: auth(who, { 'content-type': contentType }), body: new Uint8Array(payload) });
        assert.equal(res.status, status, await res.text());
      }
      assert.equal(await storageUnderTest.countUploads(api), objects + 1, 'only the accepted file was stored');
    });

    /** The presigned PUT: to the bucket over HTTP (S3), or through the app (local directory). */
    async function fetchPut(url: string, headers: Record<string, string>, bytes: Buffer): Promise<number> {
      if (url.startsWith('https://api.certdesk.test')) {
        return (await api.app.inject({ method: 'PUT', url: url.replace('https://api.certdesk.test', ''), headers, payload: bytes })).statusCode;
      }
      return (await fetch(url, { method: 'PUT', headers, body: new Uint8Array(bytes) })).status;
    }
  });
}

for (const target of databaseTargets()) {
  suite(target, localStorage());
  suite(target, s3Storage());

  describe(`upload limits on ${target.name}`, () => {
    let api: Api & { dir: string };
    const clock = new ManualClock(Date.UTC(2030, 0, 1));
    let token: string;

    before(async () => {
      api = await startApi(target, undefined, { clock }, {
        MAX_OUTSTANDING_UPLOADS: '3',
        MAX_OUTSTANDING_UPLOAD_BYTES: '1000',
        UPLOAD_RATE_LIMIT: '6',
        UPLOAD_RATE_WINDOW: '600',
        UPLOAD_TTL: '3600',
      });
      const c = await createClient(api.database.db, { organizationId: ACME.id, userEmail: USERS.loner.email, scopes: [SCOPES.read, SCOPES.write] });
      token = await obtainToken(api.app, c.client_id, c.client_secret);
    });
    after(async () => {
      await api.close();
      rmSync(api.dir, { recursive: true, force: true });
    });

    const announce = (size: number) =>
      api.app.inject({ method: 'POST', url: '/v1/uploads', headers: { authorization: `Bearer ${token}` }, payload: { file_name: 'a.png', content_type: 'image/png', size } });
    const assert429 = (res: Awaited<ReturnType<typeof announce>>, retryAfter: number, op: string) => {
      assert.equal(res.statusCode, 429, res.body);
      assert.equal(res.headers['retry-after'], String(retryAfter));
      assert.deepEqual(Object.keys(res.json() as object), ['detail']);
      api.openapi.assertResponse(api.openapi.operationIds().find((id) => id.startsWith(`${op}_v1_`))!, 429, res.json());
    };

    it('outstanding bytes and count: 429 with Retry-After until the first outstanding upload expires', async () => {
      assert.equal((await announce(600)).statusCode, 201);
      assert429(await announce(401), 3600, 'create_upload'); // 600 + 401 > 1000 bytes; the first expires in an hour
      clock.advance(60_000);
      assert.equal((await announce(399)).statusCode, 201);
      assert.equal((await announce(1)).statusCode, 201);
      assert429(await announce(1), 3540, 'create_upload'); // three outstanding: the first expires in 59 minutes
      clock.advance(3600_000); // all three expired: the slots are free again
    });

    it('the creation rate counts multipart orders and announcements together: 429 with Retry-After', async () => {
      const bytes = pngBytes();
      const order = async () => {
        const data = new FormData();
        data.append('order_title', 'rate');
        data.append('file', new Blob([new Uint8Array(bytes)], { type: 'image/png' }), 'r.png');
        const encoded = new Response(data);
        return api.app.inject({
          method: 'POST',
          url: '/v1/orders',
          headers: { authorization: `Bearer ${token}`, 'content-type': encoded.headers.get('content-type')! },
          payload: Buffer.from(await encoded.arrayBuffer()),
        });
      };
      const objects = () => readdirSync(path.join(api.dir, 'orgs', ACME.id, 'uploads')).length;
      // The window of the first test (3 counted) ended long ago: six uploads in a new one.
      assert.equal((await announce(1)).statusCode, 201);
      for (let i = 0; i < 5; i++) assert.equal((await order()).statusCode, 201, `order ${i}`);
      clock.advance(100_000);
      const stored = objects();
      const refused = await order();
      assert429(refused, 500, 'create_order');
      assert429(await announce(1), 500, 'create_upload');
      assert.equal(objects(), stored, 'a refused multipart order stores nothing');
      clock.advance(500_000);
      assert.equal((await order()).statusCode, 201);
    });
  });
}
