/**
 * A multipart `POST /v1/orders` cut short or mis-framed, through a real socket: the body ends at every
 * byte of the form (Content-Length matching what was sent, so the server has the whole request), or its
 * framing is wrong. Every such request is answered within 5 s, with 400 (or another 4xx for what is
 * wrong with it), and nothing is stored: no upload row, no order, no object. The whole form is the
 * control (201). PGlite always, PostgreSQL when TEST_DATABASE_URL is set.
 */
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { after, before, it } from 'node:test';
import { catalogues } from '../../src/i18n/index.js';
import { describeOnEachDatabase } from '../helpers/database.js';
import { snapshotTables } from '../helpers/db-snapshot.js';
import { TINY_PNG_BASE64 } from '../helpers/fixtures.js';
import { startApi, type Api } from '../http/api-harness.js';
import { rawRequest, type RawResponse } from './raw-http.js';

const ANSWER_WITHIN_MS = 5_000;
const BOUNDARY = 'certdeskCutBoundary7';
const PNG = Buffer.from(TINY_PNG_BASE64, 'base64');

/** The whole form: fields first, then the file, then the closing delimiter. */
function form(boundary = BOUNDARY, eol = '\r\n'): Buffer {
  return Buffer.concat([
    Buffer.from(`--${boundary}${eol}Content-Disposition: form-data; name="order_title"${eol}${eol}Cut short${eol}`),
    Buffer.from(`--${boundary}${eol}Content-Disposition: form-data; name="tags"${eol}${eol}framing${eol}`),
    Buffer.from(`--${boundary}${eol}Content-Disposition: form-data; name="file"; filename="cut.png"${eol}Content-Type: image/png${eol}${eol}`),
    PNG,
    Buffer.from(`${eol}--${boundary}--${eol}`),
  ]);
}

/** Every file under `dir` (the local object storage), relative. */
function objectsIn(dir: string): string[] {
  return (readdirSync(dir, { recursive: true, withFileTypes: true }) as Array<{ isFile(): boolean; name: string; parentPath?: string; path?: string }>)
    .filter((e) => e.isFile())
    .map((e) => path.relative(dir, path.join(e.parentPath ?? e.path ?? dir, e.name)))
    .filter((f) => !f.split(path.sep).some((part) => part.startsWith('.') || part === 'tmp'))
    .sort();
}

describeOnEachDatabase('multipart orders cut short or mis-framed', (getDb) => {
  let api: Api & { dir: string };
  let port: number;

  before(async () => {
    api = await startApi(getDb());
    await api.app.listen({ host: '127.0.0.1', port: 0 });
    port = (api.app.server.address() as AddressInfo).port;
  });
  after(async () => {
    await api?.close();
  });

  const post = async (body: Buffer, contentType = `multipart/form-data; boundary=${BOUNDARY}`, idempotencyKey?: string): Promise<RawResponse & { ms: number }> => {
    const key = idempotencyKey ? `Idempotency-Key: ${idempotencyKey}\r\n` : '';
    const head = `POST /v1/orders HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${api.tokens.admin}\r\n${key}Content-Type: ${contentType}\r\nContent-Length: ${body.length}\r\n\r\n`;
    const started = performance.now();
    // rawRequest rejects when no answer came within the bound: an unanswered request fails the test.
    const res = await rawRequest(port, Buffer.concat([Buffer.from(head), body]), ANSWER_WITHIN_MS);
    return { ...res, ms: performance.now() - started };
  };

  it('a body that ends at any byte before its closing delimiter is answered 400 at once and stores nothing', async (t) => {
    const whole = form();
    const closed = whole.length - 2; // `--boundary--` complete: the epilogue's CRLF is optional (RFC 2046)
    const storedBefore = { tables: await snapshotTables(getDb().db), objects: objectsIn(api.dir) };
    const statuses = new Map<string, number>();
    let slowest = 0;
    for (let cut = 0; cut < closed; cut++) {
      const res = await post(whole.subarray(0, cut));
      const where = `cut at byte ${cut} of ${whole.length} (${JSON.stringify(whole.subarray(Math.max(0, cut - 12), cut).toString('latin1'))})`;
      // An empty body is an empty form (fields missing: 422); every other cut is a broken form (400).
      if (cut === 0) assert.equal(res.status, 422, `${where}: ${res.status} ${res.body}`);
      else assert.equal(res.status, 400, `${where}: ${res.status} ${res.body}`);
      assert.deepEqual(Object.keys(JSON.parse(res.body) as object), ['detail'], where);
      statuses.set(`${res.status} ${res.body}`, (statuses.get(`${res.status} ${res.body}`) ?? 0) + 1);
      slowest = Math.max(slowest, res.ms);
    }
    assert.deepEqual(await snapshotTables(getDb().db), storedBefore.tables, 'no upload row, no order');
    assert.deepEqual(objectsIn(api.dir), storedBefore.objects, 'no object');
    // Cut inside the file's bytes, the answer says why.
    const insideFile = await post(whole.subarray(0, whole.indexOf(PNG) + 10));
    assert.deepEqual(JSON.parse(insideFile.body), { detail: catalogues.en['errors.multipart_incomplete'] });
    t.diagnostic(`${closed} cut points, slowest answer ${Math.round(slowest)} ms; answers: ${[...statuses].map(([k, n]) => `${n}× ${k}`).join('; ')}`);
  });

  it('the whole form (with or without the epilogue’s CRLF) is the control: 201, one order', async () => {
    const whole = form();
    for (const body of [whole, whole.subarray(0, whole.length - 2)]) {
      const res = await post(body);
      assert.equal(res.status, 201, res.body.slice(0, 300));
    }
  });

  it('a form cut inside its file under an Idempotency-Key leaves the key free: the whole form sent again is created', async () => {
    const whole = form();
    const key = `cut-${Date.now()}`;
    const cut = await post(whole.subarray(0, whole.indexOf(PNG) + 10), undefined, key);
    assert.equal(cut.status, 400, cut.body);
    const again = await post(whole, undefined, key);
    assert.equal(again.status, 201, again.body.slice(0, 300));
    assert.equal(again.headers['idempotent-replayed'], undefined);
  });

  it('mis-framed forms are answered within the bound with a 4xx and store nothing', async () => {
    const whole = form();
    const storedBefore = { tables: await snapshotTables(getDb().db), objects: objectsIn(api.dir) };
    const cases: Array<[string, Buffer, string?]> = [
      ['another boundary in the body', form('someOtherBoundary')],
      ['no boundary parameter', whole, 'multipart/form-data'],
      ['an empty boundary parameter', whole, 'multipart/form-data; boundary='],
      ['bare LF line endings, cut inside the file', form(BOUNDARY, '\n').subarray(0, form(BOUNDARY, '\n').indexOf(PNG) + 5)],
      ['a part without headers', Buffer.from(`--${BOUNDARY}\r\n\r\nvalue\r\n--${BOUNDARY}--\r\n`)],
      ['a part whose headers never end', Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="a.png"\r\nContent-Type: image/png`)],
      ['the file first, cut inside it', Buffer.concat([Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="a.png"\r\n\r\n`), PNG.subarray(0, 20)])],
      ['two files, the second cut', Buffer.concat([whole.subarray(0, whole.length - `--${BOUNDARY}--\r\n`.length), Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="b.png"\r\n\r\n`), PNG.subarray(0, 9)])],
      ['garbage only', Buffer.from('\u0000\u0001garbage\r\n\r\n--')],
      ['a closing delimiter only', Buffer.from(`--${BOUNDARY}--\r\n`)],
    ];
    for (const [name, body, contentType] of cases) {
      const res = await post(body, contentType);
      assert.ok(res.status >= 400 && res.status < 500, `${name}: ${res.status} ${res.body}`);
      assert.ok(res.status !== 413, `${name}: ${res.status}`);
    }
    assert.deepEqual(await snapshotTables(getDb().db), storedBefore.tables, 'no upload row, no order');
    assert.deepEqual(objectsIn(api.dir), storedBefore.objects, 'no object');
  });
});
