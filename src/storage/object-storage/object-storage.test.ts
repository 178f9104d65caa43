/**
 * One contract for every object storage: the local directory and S3 (through the AWS SDK, against a real
 * S3-compatible server started here, s3rver). Bytes in and out, ranges, heads, deletes, streamed writes
 * with a byte counter, presigned PUT and GET used with plain HTTP.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { startS3Server, type TestS3Server } from '../../../test/helpers/s3-server.js';
import { HmacUploadPresigner } from './upload-signing.js';
import { LocalDirectoryStorage, ObjectExistsError, ObjectSizeMismatchError, parseS3Url, S3ObjectStorage, type ObjectStorage } from './index.js';

async function text(object: { body: NodeJS.ReadableStream } | null): Promise<string> {
  assert.ok(object);
  const chunks: Buffer[] = [];
  for await (const c of object.body) chunks.push(Buffer.from(c as Buffer));
  return Buffer.concat(chunks).toString('utf8');
}

function contract(name: string, open: () => ObjectStorage) {
  describe(`object storage contract: ${name}`, () => {
    let storage: ObjectStorage;
    before(() => {
      storage = open();
    });

    it('puts, heads, gets (whole and ranges) and deletes', async () => {
      await storage.put('orgs/a/x.txt', Buffer.from('hello world'), 'text/plain');
      assert.deepEqual(await storage.head('orgs/a/x.txt'), { size: 11, contentType: 'text/plain' });
      assert.equal(await text(await storage.get('orgs/a/x.txt')), 'hello world');
      assert.equal(await text(await storage.get('orgs/a/x.txt', { start: 0, end: 4 })), 'hello');
      assert.equal(await text(await storage.get('orgs/a/x.txt', { start: 6, end: 100 })), 'world');
      assert.equal(await storage.exists('orgs/a/x.txt'), true);
      await storage.delete('orgs/a/x.txt');
      assert.equal(await storage.head('orgs/a/x.txt'), null);
      assert.equal(await storage.get('orgs/a/x.txt'), null);
      await storage.delete('orgs/a/x.txt'); // deleting nothing is fine
    });

    it('streams a write with exactly the expected size, and refuses any other size leaving nothing behind', async () => {
      const bytes = Buffer.alloc(100_000, 7);
      assert.deepEqual(await storage.putStream('orgs/a/s.bin', Readable.from([bytes.subarray(0, 50_000), bytes.subarray(50_000)]), { contentType: 'application/octet-stream', expectedSize: bytes.length }), { size: bytes.length });
      assert.equal((await storage.head('orgs/a/s.bin'))?.size, bytes.length);
      for (const wrong of [bytes.subarray(1), Buffer.concat([bytes, Buffer.from('x')])]) {
        await assert.rejects(storage.putStream('orgs/a/t.bin', Readable.from([wrong]), { contentType: 'application/octet-stream', expectedSize: bytes.length }), ObjectSizeMismatchError);
        assert.equal(await storage.head('orgs/a/t.bin'), null);
      }
    });

    it('streams a body larger than an S3 part (multipart on S3) from a generator, bytes intact', async () => {
      const chunk = Buffer.alloc(256 * 1024);
      const hash = createHash('sha256');
      let produced = 0;
      async function* source() {
        for (let i = 0; i < 48; i++) {
          chunk.fill(i);
          hash.update(chunk);
          produced += chunk.length;
          yield Buffer.from(chunk);
        }
      }
      const { size } = await storage.putStream('orgs/a/big.bin', Readable.from(source()), { contentType: 'application/octet-stream', ifNoneMatch: true });
      assert.equal(size, 12 * 1024 * 1024);
      assert.equal(produced, size);
      assert.deepEqual(await storage.head('orgs/a/big.bin'), { size, contentType: 'application/octet-stream' });
      const read = createHash('sha256');
      for await (const c of (await storage.get('orgs/a/big.bin'))!.body) read.update(c as Buffer);
      assert.equal(read.digest('hex'), hash.digest('hex'));
      await storage.delete('orgs/a/big.bin');
    });
  });
}

/** Folders of the local directory storages below, removed when the file is done. */
const localDirs: string[] = [];
const localDirectory = () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'certdesk-objects-'));
  localDirs.push(dir);
  return new LocalDirectoryStorage(dir);
};
after(() => {
  for (const dir of localDirs) rmSync(dir, { recursive: true, force: true });
});

contract('local directory', localDirectory);

describe('local directory specifics', () => {
  it('a read while the object is being replaced gets one whole version, its size matching its bytes', async () => {
    // The transparency log rewrites its checkpoint in place while monitors read it: versions of growing
    // length (a torn read showed as the old size with the new bytes, cut short). S3 guarantees this itself
    // (a PUT is never seen partly); s3rver, the S3 server of these tests, writes in place and does not.
    const storage = localDirectory();
    const versions = Array.from({ length: 40 }, (_, i) => `checkpoint ${'9'.repeat(i + 1)}\n`);
    await storage.put('log/checkpoint', Buffer.from(versions[0]!), 'text/plain');
    let writing = true;
    const writer = (async () => {
      for (let round = 0; round < 5; round++) for (const v of versions) await storage.put('log/checkpoint', Buffer.from(v), 'text/plain');
      writing = false;
    })();
    let reads = 0;
    while (writing || reads === 0) {
      const object = await storage.get('log/checkpoint');
      assert.ok(object);
      const body = await text(object);
      assert.ok(versions.includes(body), `a whole version was read, not ${JSON.stringify(body)}`);
      assert.equal(object.size, Buffer.byteLength(body), 'the size is that of the bytes read');
      reads++;
    }
    await writer;
  });

  it('a create-only write is refused when the key holds an object', async () => {
    const storage = localDirectory();
    await storage.putStream('k', Readable.from([Buffer.from('a')]), { contentType: 'text/plain', ifNoneMatch: true });
    await assert.rejects(storage.putStream('k', Readable.from([Buffer.from('b')]), { contentType: 'text/plain', ifNoneMatch: true }), ObjectExistsError);
    assert.equal(await text(await storage.get('k')), 'a');
  });

  it('a refused create-only write changes neither the bytes nor the stored content type', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'certdesk-objects-'));
    try {
      const storage = new LocalDirectoryStorage(dir);
      await storage.putStream('k', Readable.from([Buffer.from('a')]), { contentType: 'image/png', ifNoneMatch: true });
      await assert.rejects(storage.putStream('k', Readable.from([Buffer.from('<b>')]), { contentType: 'text/html', ifNoneMatch: true }), ObjectExistsError);
      assert.deepEqual(await storage.head('k'), { size: 1, contentType: 'image/png' });
      assert.equal(await text(await storage.get('k')), 'a');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('the upload signature binds key, size, expiry and content type', async () => {
    const signer = new HmacUploadPresigner(Buffer.alloc(32, 1), 'https://x.test');
    const expiresAt = new Date(1_900_000_000_000);
    const { url, headers, method } = await signer.presignUpload({ key: 'orgs/a/u', size: 10, contentType: 'image/png', expiresAt });
    assert.equal(method, 'PUT');
    assert.deepEqual(headers, { 'Content-Type': 'image/png' });
    const q = new URL(url).searchParams;
    const check = (key: string, size: string, expires: string, now = 1_899_999_999, type: string | null = 'image/png') => signer.verify(key, expires, size, q.get('signature'), type ?? undefined, now);
    assert.equal(check('orgs/a/u', '10', q.get('expires')!), 'ok');
    assert.equal(check('orgs/a/u', '10', q.get('expires')!, 1_900_000_001), 'expired');
    assert.equal(check('orgs/a/v', '10', q.get('expires')!), 'bad-signature');
    assert.equal(check('orgs/a/u', '11', q.get('expires')!), 'bad-signature');
    assert.equal(check('orgs/a/u', '10', '1900000001'), 'bad-signature');
    for (const type of ['text/html', 'image/PNG', 'image/png; charset=utf-8', '', null]) {
      assert.equal(check('orgs/a/u', '10', q.get('expires')!, 1_899_999_999, type), 'bad-signature', String(type));
    }
  });
});

describe('S3 through the AWS SDK (s3rver)', () => {
  let server: TestS3Server;
  before(async () => {
    server = await startS3Server();
  });
  after(() => server.close());

  contract('S3 bucket with a prefix', () => server.storage('tenant-data/v1'));

  it('keeps objects under the configured prefix', async () => {
    const prefixed = server.storage('p1');
    const root = server.storage('');
    await prefixed.put('orgs/a/k.txt', Buffer.from('x'), 'text/plain');
    assert.equal((await root.head('p1/orgs/a/k.txt'))?.size, 1);
    assert.equal(await root.head('orgs/a/k.txt'), null);
  });

  it('presigned PUT (Content-Length signed) and presigned GET work with plain HTTP', async () => {
    const storage = server.storage('presign');
    const bytes = Buffer.from('presigned bytes');
    const ticket = await storage.presignUpload({ key: 'orgs/a/up', size: bytes.length, contentType: 'image/png', expiresAt: new Date(Date.now() + 60_000) });
    const signed = new URL(ticket.url).searchParams.get('X-Amz-SignedHeaders')!.split(';');
    assert.deepEqual(signed.sort(), ['content-length', 'content-type', 'host', 'if-none-match']);
    assert.ok(['59', '60'].includes(new URL(ticket.url).searchParams.get('X-Amz-Expires')!), 'valid until the upload expires');
    const put = await fetch(ticket.url, { method: 'PUT', headers: ticket.headers, body: new Uint8Array(bytes) });
    assert.equal(put.status, 200);
    assert.deepEqual(await storage.head('orgs/a/up'), { size: bytes.length, contentType: 'image/png' });
    const get = await fetch(await storage.presignGet('orgs/a/up', 300));
    assert.equal(get.status, 200);
    assert.equal(await get.text(), 'presigned bytes');
  });

  it('parses s3:// URLs', () => {
    assert.deepEqual(parseS3Url('s3://my-bucket/some/prefix/'), { bucket: 'my-bucket', prefix: 'some/prefix' });
    assert.deepEqual(parseS3Url('s3://my-bucket'), { bucket: 'my-bucket', prefix: '' });
    for (const bad of ['s3://', 'https://b/p', 's3://Bad_Bucket/x', 's3://b/../x']) assert.throws(() => parseS3Url(bad), bad);
    assert.ok(new S3ObjectStorage({ ...parseS3Url('s3://b-1/x'), forcePathStyle: true }).description.includes('s3://b-1/x'));
  });
});
