/**
 * Object keys are scoped per organization (issue 8 item 6): an order of organization B naming
 * organization A's object is refused at seed and import time with the path or line at fault, and no URL
 * is ever presigned for a key outside the order's organization, whatever is stored.
 */
import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { toOrderRow } from '../../src/domain/orders/order-document.js';
import { upsertOrders } from '../../src/domain/orders/order.repository.js';
import { ImportError, importOrders } from '../../src/domain/order-import/order-import.js';
import { loadSeed, SeedError } from '../../src/domain/seed/seed.js';
import { databaseTargets } from '../helpers/database.js';
import { ACME, GLOBEX, standardSeedDocument, temporaryObjectStorage, TINY_PNG_BASE64, removeTemporaryObjectStorages } from '../helpers/fixtures.js';
import { startApi, type Api } from '../http/api-harness.js';

const ACME_PREVIEW = `orgs/${ACME.id}/previews/acme-0.png`;

for (const target of databaseTargets()) {
  describe(`object keys belong to one organization on ${target.name}`, () => {
    let api: Api;
    before(async () => {
      api = await startApi(target);
    });
    after(() => api.close());

    const stolenOrder = (orderId: string) => {
      const order = structuredClone(standardSeedDocument().organizations[1]!.orders![1]!);
      return { ...order, order_id: orderId, project_id: null, asset_preview_key: ACME_PREVIEW, layers: [{ layer_name: 'L', key: `orgs/${ACME.id}/layers/acme-0-bg.png` }] };
    };

    it("an import for B naming A's key is refused with its line, and imports nothing", async () => {
      const lines = [JSON.stringify({ ...stolenOrder('ok-0'), asset_preview_key: `orgs/${GLOBEX.id}/previews/own.png`, layers: [] }), JSON.stringify(stolenOrder('stolen-1'))];
      await assert.rejects(importOrders(api.database, { organizationId: GLOBEX.id, input: Readable.from(`${lines.join('\n')}\n`) }), (err: unknown) => {
        assert.ok(err instanceof ImportError);
        assert.equal(err.message, `line 2: asset_preview_key: must be an object key under orgs/${GLOBEX.id}/ (the order's organization)`);
        return true;
      });
      const written = await api.database.db.selectFrom('orders').select('order_id').where('order_id', 'in', ['ok-0', 'stolen-1']).execute();
      assert.deepEqual(written, []);
    });

    it("a seed naming another organization's key, or an object outside every organization, names the path", async () => {
      const { storage } = temporaryObjectStorage();
      const doc = standardSeedDocument();
      doc.organizations[1]!.orders![0]!.layers = [{ layer_name: 'L', key: `orgs/${ACME.id}/layers/x.png` }];
      await assert.rejects(loadSeed(api.database.db, storage, doc), (err: unknown) => {
        assert.ok(err instanceof SeedError);
        assert.equal(err.problem.path, 'organizations[1].orders[0].layers[0].key');
        return true;
      });
      const objects = standardSeedDocument();
      objects.objects = [{ key: 'previews/unscoped.png', content_type: 'image/png', content_base64: TINY_PNG_BASE64 }];
      await assert.rejects(loadSeed(api.database.db, storage, objects), (err: unknown) => err instanceof SeedError && err.problem.path === 'objects[0].key');
    });

    it('no URL is presigned for a stored key outside the order\'s organization', async () => {
      // A row that bypassed the checks (written before keys were scoped, or by a bug).
      await upsertOrders(api.database.db, [toOrderRow(GLOBEX.id, stolenOrder('legacy-stolen'))]);
      const res = await api.get('/v1/orders?project_id=All%20Projects&limit=1000', 'other');
      assert.equal(res.statusCode, 200);
      const orders = res.json().orders as Array<{ order_id: string; asset_preview_url: string | null; layers_info: unknown[] }>;
      const stolen = orders.find((o) => o.order_id === 'legacy-stolen');
      assert.ok(stolen);
      assert.equal(stolen.asset_preview_url, null);
      assert.deepEqual(stolen.layers_info, []);
      assert.ok(!res.body.includes(`orgs/${ACME.id}/`), "no URL of A's objects in B's answer");
      // A's own orders still get working URLs.
      const own = await api.get('/v1/orders?project_id=All%20Projects&limit=1000', 'admin');
      const url = (own.json().orders as Array<{ asset_preview_url: string | null }>).find((o) => o.asset_preview_url?.includes('/previews/acme-0.png'))?.asset_preview_url;
      assert.ok(url);
      const object = await api.app.inject({ url: new URL(url).pathname + new URL(url).search });
      assert.equal(object.statusCode, 200);
    });
  });
}

// The temporary object storage folders this file made (test/helpers/fixtures.ts).
after(removeTemporaryObjectStorages);
