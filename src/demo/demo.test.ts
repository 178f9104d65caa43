import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { Writable } from 'node:stream';
import { after, describe, it } from 'node:test';
import { inflateSync } from 'node:zlib';
import { describeOnEachDatabase } from '../../test/helpers/database.js';
import { temporaryObjectStorage, removeTemporaryObjectStorages } from '../../test/helpers/fixtures.js';
import { ORDER_STATES } from '../contract/schemas.js';
import { loadSeed, validateSeedDocument } from '../domain/seed/seed.js';
import { ensureAssetSha256 } from '../domain/certificates/index.js';
import { buildDemoSeed, DEMO_CERTIFIER, DEMO_ORGANIZATIONS, encodePng, useDemoPreviewsAsAssets, writeNdjsonOrders } from './index.js';
import { pngChunk } from './png.js';

async function ndjsonDigest(count: number, seed: number): Promise<{ digest: string; lines: number }> {
  const hash = createHash('sha256');
  let lines = 0;
  const sink = new Writable({
    highWaterMark: 1024,
    write(chunk: Buffer, _enc, done) {
      hash.update(chunk);
      lines += chunk.toString('utf8').split('\n').length - 1;
      setImmediate(done); // a slow consumer: the writer must wait for 'drain'
    },
  });
  await writeNdjsonOrders(sink, { organizationId: DEMO_ORGANIZATIONS[0]!.id, count, seed });
  return { digest: hash.digest('hex'), lines };
}

describe('demo data generator', () => {
  it('gives identical bytes for the same seed and different bytes for another seed', async () => {
    assert.equal(JSON.stringify(buildDemoSeed()), JSON.stringify(buildDemoSeed()));
    const a = await ndjsonDigest(3000, 1);
    const b = await ndjsonDigest(3000, 1);
    const c = await ndjsonDigest(3000, 2);
    assert.equal(a.lines, 3000);
    assert.equal(a.digest, b.digest);
    assert.notEqual(a.digest, c.digest);
  });

  it('builds a valid seed with every state, both selector types, failed items, tags, layers and previews', () => {
    const seed = validateSeedDocument(buildDemoSeed());
    assert.deepEqual(seed.organizations.map((o) => o.name), ['Acme Studio', 'Northwind Pictures', 'Certdesk Certifiers']);
    // The certifier organization holds the demo reviewer only (no orders: a reviewer never reviews their own).
    const certifier = seed.organizations[2]!;
    assert.deepEqual(certifier.users?.map((u) => [u.email, Boolean(u.password)]), [[DEMO_CERTIFIER.reviewer.email, true]]);
    assert.equal(certifier.orders, undefined);
    for (const org of seed.organizations.slice(0, 2)) {
      const orders = org.orders ?? [];
      assert.ok(orders.length >= 60 && orders.length <= 120, `${org.name} has ${orders.length} orders`);
      assert.deepEqual(new Set(orders.map((o) => o.order_state)), new Set(ORDER_STATES));
      const selectors = new Set(orders.flatMap((o) => (o.annotations ?? []).map((a) => a.target?.selector.type)));
      assert.deepEqual(selectors, new Set(['RECTANGLE', 'POLYGON']));
      for (const a of orders.flatMap((o) => o.annotations ?? [])) {
        const b = a.target!.selector.geometry.bounds;
        assert.ok(b.minX >= 0 && b.minY >= 0 && b.maxX <= 1 && b.maxY <= 1 && b.minX < b.maxX && b.minY < b.maxY, 'geometry is normalized 0..1');
      }
      assert.ok(orders.some((o) => (o.analysis_failed_items ?? []).length > 0));
      assert.ok(orders.some((o) => (o.tags ?? []).length > 0));
      assert.ok(orders.some((o) => (o.layers ?? []).length > 0));
      assert.ok(orders.some((o) => o.project_id === null), 'personal orders');
      const roles = new Set((org.projects ?? []).flatMap((p) => (p.members ?? []).map((m) => m.role)));
      assert.deepEqual(roles, new Set(['admin', 'editor', 'viewer']));
      const members = new Set((org.projects ?? []).flatMap((p) => (p.members ?? []).map((m) => m.email)));
      assert.ok((org.users ?? []).some((u) => !u.is_admin && !members.has(u.email)), 'a member of no project');
      assert.ok((org.users ?? []).some((u) => u.is_admin && u.password), 'an administrator with a web password');
    }
    const keys = new Set(seed.objects!.map((o) => o.key));
    for (const o of seed.organizations.flatMap((org) => org.orders ?? [])) {
      if (o.asset_preview_key) assert.ok(keys.has(o.asset_preview_key), `object for ${o.asset_preview_key}`);
      for (const l of o.layers ?? []) assert.ok(keys.has(l.key));
    }
  });

  it('encodes real PNG files', () => {
    // Every PNG ends with this exact IEND chunk (length 0, type, CRC-32 AE 42 60 82).
    assert.deepEqual([...pngChunk('IEND', Buffer.alloc(0))], [0, 0, 0, 0, 0x49, 0x45, 0x4e, 0x44, 0xae, 0x42, 0x60, 0x82]);
    const png = encodePng(2, 1, Uint8Array.from([255, 0, 0, 0, 0, 255]));
    assert.deepEqual([...png.subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
    assert.equal(png.readUInt32BE(16), 2);
    assert.equal(png.readUInt32BE(20), 1);
    const idatLength = png.readUInt32BE(33);
    assert.equal(png.subarray(37, 41).toString('ascii'), 'IDAT');
    assert.deepEqual([...inflateSync(png.subarray(41, 41 + idatLength))], [0, 255, 0, 0, 0, 0, 255]);
    const preview = Buffer.from(buildDemoSeed().objects![0]!.content_base64, 'base64');
    assert.equal(preview.readUInt32BE(16), 320);
    assert.equal(preview.readUInt32BE(20), 240);
  });
});

describeOnEachDatabase('demo seed', (getDb) => {

  it('loads, and loading it again changes nothing', async () => {
    const { storage } = temporaryObjectStorage();
    const first = await loadSeed(getDb().db, storage, buildDemoSeed());
    assert.equal(first.organizations, 3);
    assert.ok(first.changed > 0);
    const again = await loadSeed(getDb().db, storage, buildDemoSeed());
    assert.equal(again.changed, 0);
    const preview = await storage.get(buildDemoSeed().organizations[0]!.orders!.find((o) => o.asset_preview_key)!.asset_preview_key!);
    assert.equal(preview?.contentType, 'image/png');
  });

  it('every accepted demo order In Progress has original bytes (its preview), so Certify can name them', async () => {
    const { storage } = temporaryObjectStorage();
    await loadSeed(getDb().db, storage, buildDemoSeed());
    const ids = DEMO_ORGANIZATIONS.map((o) => o.id);
    assert.ok((await useDemoPreviewsAsAssets(getDb().db, ids)) > 0);
    assert.equal(await useDemoPreviewsAsAssets(getDb().db, ids), 0, 'idempotent');
    assert.equal((await loadSeed(getDb().db, storage, buildDemoSeed())).changed, 0, 'the seed still loads unchanged');
    const waiting = await getDb().db.selectFrom('orders').select(['order_id', 'asset_key', 'asset_preview_key']).where('order_state', '=', 'In Progress').where('organization_id', 'in', ids).execute();
    assert.ok(waiting.length > 0);
    for (const o of waiting) {
      assert.ok(o.asset_key, `${o.order_id} has an asset`);
      assert.equal(o.asset_key, o.asset_preview_key);
    }
    const digest = await ensureAssetSha256(getDb().db, storage, waiting[0]!.order_id);
    assert.match(digest ?? '', /^[0-9a-f]{64}$/);
  });
});

// The temporary object storage folders this file made (test/helpers/fixtures.ts).
after(removeTemporaryObjectStorages);
