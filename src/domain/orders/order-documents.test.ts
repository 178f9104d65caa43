/**
 * The stored documents against the contract and against the renderer, on a real database (PGlite, and
 * PostgreSQL when TEST_DATABASE_URL is set):
 * - equality over every order shape: generated orders (every optional field present, absent or null,
 *   unicode and control characters, offsets and fractions in timestamps, keys inside and outside the
 *   organization) are stored, then listed by the database-assembled page (listOrdersBody) and by the page
 *   spliced from rows (listOrders + renderOrdersResponse): both byte for byte the same, and each order
 *   exactly the contract's Order (every key, in the contract's order) built here from the input alone;
 * - drift: a document changed behind the renderer's back is found (check, sample) and repaired (rerender);
 * - a document the renderer cannot make fails its write, and the transaction leaves row and document as they were.
 */
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import fc from 'fast-check';
import { sql } from 'kysely';
import { describeOnEachDatabase } from '../../../test/helpers/database.js';
import { ACME, loadStandardFixture, removeTemporaryObjectStorages } from '../../../test/helpers/fixtures.js';
import { principalOf } from '../../../test/helpers/orders-oracle.js';
import { loadConfig } from '../../config.js';
import { ORDER_STATES } from '../../contract/schemas.js';
import type { Principal } from '../principal.js';
import { ManualClock } from '../time/clock.js';
import { normalizeTimestamp, OrderRenderError, toOrderRow } from './order-document.js';
import type { OrderInputT } from './order-input.schema.js';
import { checkDocuments, rerenderOrders, sampleDocumentDrift } from './order-documents.service.js';
import { changeOrder } from './order-lifecycle.service.js';
import { upsertOrders } from './order.repository.js';
import { createOrdersContext, listOrders, listOrdersBody, renderOrdersResponse, type OrdersContext } from './index.js';

const config = loadConfig({ PUBLIC_BASE_URL: 'http://certdesk.test' });
const NOW = 1_900_000_000;
const PREFIX = `orgs/${ACME.id}/`;

/** Text with what escaping must get right: quotes, backslashes, control characters, non-ASCII, astral characters. */
const text = (min = 0, max = 12) =>
  fc.oneof(
    fc.string({ minLength: min, maxLength: max }),
    fc.string({ unit: 'grapheme', minLength: min, maxLength: max }),
    fc.string({ unit: fc.constantFrom('"', '\\', '\u0001', '\u0002', '\u001f', '\u007f', '\u2028', 'é', '𝄞', '}', ',', 'a'), minLength: min, maxLength: max }),
  );
const maybe = <T>(arb: fc.Arbitrary<T>) => fc.option(arb, { nil: undefined });
const orNull = <T>(arb: fc.Arbitrary<T>) => fc.option(arb, { nil: null });
const unit = fc.double({ min: 0, max: 1, noNaN: true });
const timestamp = fc
  .tuple(fc.date({ min: new Date('1970-01-01T00:00:00Z'), max: new Date('2100-01-01T00:00:00Z'), noInvalidDate: true }), fc.constantFrom('', '.1', '.123', '.123456', '.123456789'), fc.constantFrom('Z', '+02:00', '-05:30', 'z'))
  .map(([d, fraction, zone]) => `${d.toISOString().slice(0, 19)}${fraction}${zone}`);
const key = fc.tuple(fc.boolean(), fc.stringMatching(/^[a-z0-9][a-z0-9._-]{0,10}$/)).map(([own, name]) => (own ? `${PREFIX}gen/${name}.png` : `elsewhere/${name}.png`));

const annotation = fc.record(
  {
    id: orNull(text()),
    bodies: fc.array(fc.record({ value: text(), id: text(), annotation: text() }), { maxLength: 2 }),
    properties: fc.record({ needs_remediation: orNull(fc.boolean()), ai_likelihood: orNull(unit) }, { requiredKeys: [] }),
    target: orNull(
      fc.record({
        annotation: text(),
        selector: fc.record({ type: fc.constantFrom('RECTANGLE' as const, 'POLYGON' as const), geometry: fc.record({ bounds: fc.record({ minX: fc.integer(), minY: fc.integer(), maxX: fc.integer(), maxY: fc.integer() }) }) }),
      }),
    ),
  },
  { requiredKeys: [] },
);

/** An order as it may enter certdesk (OrderInput), every optional field sometimes absent, sometimes null. */
function orderInput(id: string): fc.Arbitrary<OrderInputT> {
  return fc
    .record({
      username: text(1),
      email: fc.constantFrom('gen@acme.test', 'Gen.User@Acme.Test'),
      order_state: fc.constantFrom(...ORDER_STATES),
      order_title: text(),
      asset_id: text(1),
      asset_name: text(1),
      asset_last_modified_timestamp: fc.constantFrom('0', '1700000000', '1700000000.5'),
      ordered_by: orNull(text()),
      creation_time: timestamp,
      analysis_list: maybe(fc.array(fc.record({ analysis_type: text(), analysis_passed: fc.boolean() }), { maxLength: 3 })),
      analysis_failed_items: maybe(
        fc.array(
          fc.record(
            { type: text(), name: text(), storage_path: text(), ai_likelihood: unit, annotation_ids: fc.array(text(), { maxLength: 2 }), annotation_id: orNull(text()) },
            { requiredKeys: ['type', 'name', 'storage_path'] },
          ),
          { maxLength: 2 },
        ),
      ),
      tags: maybe(fc.array(text(1), { maxLength: 3 })),
      confidence: maybe(unit),
      remediation: maybe(unit),
      annotations: maybe(fc.array(annotation, { maxLength: 2 })),
      review: fc.option(fc.tuple(text(1), timestamp), { nil: undefined }),
      project_id: maybe(orNull(fc.constantFrom(ACME.projects.zeta.id, ACME.projects.beta.id, ACME.projects.ecran.id.toUpperCase()))),
      asset_preview_key: maybe(orNull(key)),
      layers: maybe(fc.array(fc.record({ layer_name: text(1), key }), { maxLength: 3 })),
    })
    .map(({ review, order_state, ...rest }) => {
      const input: OrderInputT = { order_id: id, order_state: review || order_state !== 'Reviewed' ? order_state : 'In Progress', ...rest };
      // reviewed_by and review_timestamp come together (checkOrderRules); absent or both.
      if (review) Object.assign(input, { reviewed_by: review[0], review_timestamp: review[1] });
      for (const k of Object.keys(input) as Array<keyof OrderInputT>) if (input[k] === undefined) delete input[k];
      return input;
    });
}

/** The contract's Order for `input`, as the caller `admin` of Acme sees it: built from the input alone. */
function expectedOrder(ctx: OrdersContext, input: OrderInputT): unknown {
  const own = (k: string) => k.startsWith(PREFIX);
  const projects: Record<string, { id: string; name: string }> = Object.fromEntries(Object.values(ACME.projects).map((p) => [p.id, p]));
  const project = input.project_id ? projects[input.project_id.toLowerCase()]! : null;
  return {
    order_id: input.order_id,
    username: input.username,
    email: input.email,
    order_state: input.order_state,
    order_title: input.order_title,
    asset_id: input.asset_id,
    asset_name: input.asset_name,
    asset_last_modified_timestamp: input.asset_last_modified_timestamp,
    ordered_by: input.ordered_by,
    creation_time: normalizeTimestamp(input.creation_time),
    analysis_list: (input.analysis_list ?? []).map((l) => ({ analysis_type: l.analysis_type, analysis_passed: l.analysis_passed })),
    analysis_failed_items: (input.analysis_failed_items ?? []).map((f) => ({
      type: f.type,
      name: f.name,
      storage_path: f.storage_path,
      ai_likelihood: f.ai_likelihood ?? 0,
      annotation_ids: f.annotation_ids ?? [],
      annotation_id: f.annotation_id ?? null,
    })),
    tags: input.tags ?? [],
    confidence: input.confidence ?? 0,
    remediation: input.remediation ?? 0,
    annotations: (input.annotations ?? []).map((a) => ({
      id: a.id ?? null,
      bodies: a.bodies ?? [],
      properties: { needs_remediation: a.properties?.needs_remediation ?? null, ai_likelihood: a.properties?.ai_likelihood ?? null },
      target: a.target ?? null,
    })),
    reviewed_by: input.reviewed_by ?? null,
    review_timestamp: input.review_timestamp ? normalizeTimestamp(input.review_timestamp) : null,
    project: project ? { id: project.id, name: project.name, userRole: 'admin' } : null,
    asset_preview_url: input.asset_preview_key && own(input.asset_preview_key) ? ctx.presigner.presign(input.asset_preview_key, NOW) : null,
    layers_info: (input.layers ?? []).filter((l) => own(l.key)).map((l) => ({ layer_name: l.layer_name, layer_url: ctx.presigner.presign(l.key, NOW) })),
  };
}

describeOnEachDatabase('stored order documents', (getDb) => {
  let ctx: OrdersContext;
  let admin: Principal;
  let world = 0;

  before(async () => {
    await loadStandardFixture(getDb());
    ctx = await createOrdersContext(getDb().db, config);
    admin = await principalOf(getDb(), 'admin');
  });

  it('property: for generated orders of every shape, the assembled page, the spliced page and the contract agree byte for byte', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 6 }).chain((n) => fc.tuple(...Array.from({ length: n }, (_, i) => orderInput(`gen-${world}-${i}`)))),
        fc.boolean(),
        async (inputs, preview) => {
          const db = getDb().db;
          world += 1;
          const renamed = inputs.map((input, i) => ({ ...input, order_id: `gen-${world}-${i}` }));
          await upsertOrders(db, renamed.map((input) => toOrderRow(ACME.id, input)));
          try {
            const options = { projectId: 'All Projects', limit: 1000, preview, nowSeconds: NOW };
            const assembled = (await listOrdersBody(ctx, admin, options)).toString('utf8');
            assert.equal(assembled, renderOrdersResponse(await listOrders(ctx, admin, options)), 'assembled page = spliced page');
            const page = JSON.parse(assembled) as { orders: Array<{ order_id: string }> | null; order_previews: Array<{ order_id: string }> | null };
            for (const input of renamed) {
              const listed = (preview ? page.order_previews! : page.orders!).find((o) => o.order_id === input.order_id);
              const full = expectedOrder(ctx, input) as Record<string, unknown>;
              const expected = preview
                ? {
                    order_id: full.order_id,
                    order_title: full.order_title,
                    creation_time: full.creation_time,
                    order_state: full.order_state,
                    analysis_list: full.analysis_list,
                    tags: full.tags,
                    asset_preview_url: full.asset_preview_url,
                    project_name: (full.project as { name: string } | null)?.name ?? null,
                  }
                : full;
              // Same text, so the same keys in the same order and the same values.
              assert.equal(JSON.stringify(listed), JSON.stringify(expected), input.order_id);
            }
            assert.deepEqual(await checkDocuments(db, renamed.map((o) => o.order_id)), [], 'freshly written documents are what the renderer makes');
          } finally {
            await sql`DELETE FROM orders WHERE order_id LIKE ${`gen-${world}-%`}`.execute(db);
          }
        },
      ),
      { numRuns: 40 },
    );
  });

  it('finds a document changed behind the renderer, reports it in a sample, and repairs it', async () => {
    const db = getDb().db;
    assert.deepEqual(await checkDocuments(db, null), [], 'the fixture has no drift');
    assert.deepEqual(await sampleDocumentDrift(db, 1000), { sampled: (await db.selectFrom('orders').select(sql<number>`count(*)::int`.as('n')).executeTakeFirstOrThrow()).n, drifted: 0 });
    const [a, b] = (await db.selectFrom('orders').select('order_id').where('organization_id', '=', ACME.id).orderBy('order_id').limit(2).execute()).map((r) => r.order_id);
    // A hand-made UPDATE: the title changed in the full document only; a key dropped from the preview.
    await sql`UPDATE orders SET doc = jsonb_set(doc::jsonb, '{order_title}', '"edited by hand"')::json WHERE order_id = ${a!}`.execute(db);
    await sql`UPDATE orders SET preview_doc = (preview_doc::jsonb - 'tags')::json WHERE order_id = ${b!}`.execute(db);
    const drift = await checkDocuments(db, null);
    assert.deepEqual(drift.map((d) => d.orderId).sort(), [a, b].sort());
    assert.deepEqual(drift.find((d) => d.orderId === b)?.documents, ['preview_doc']);
    assert.equal((await sampleDocumentDrift(db, 1000)).drifted, 2);
    assert.deepEqual(await rerenderOrders(db, { orderId: b! }), { checked: 1, rewritten: 1 });
    const all = await rerenderOrders(db, { all: true });
    assert.equal(all.rewritten, 1, 'only the order that still differed is written');
    assert.deepEqual(await checkDocuments(db, null), []);
    assert.deepEqual(await rerenderOrders(db, { all: true }), { checked: all.checked, rewritten: 0 });
    // The repaired document is re-rendered from what was stored (jsonb_set rewrote the text: key order and spacing back to the renderer's).
    const row = await db.selectFrom('orders').select(sql<string>`doc::text`.as('doc')).where('order_id', '=', a!).executeTakeFirstOrThrow();
    assert.equal((JSON.parse(row.doc) as { order_title: string }).order_title, 'edited by hand');
    assert.equal(row.doc, toOrderRow(ACME.id, JSON.parse(row.doc) as OrderInputT).doc);
  });

  it('fails a change whose document cannot be rendered, leaving row and documents as they were', async () => {
    const db = getDb().db;
    const clock = new ManualClock(new Date('2030-01-01T00:00:00Z'));
    const { order_id: id } = await db.selectFrom('orders').select('order_id').where('organization_id', '=', ACME.id).where('order_state', '=', 'In Progress').orderBy('order_id').executeTakeFirstOrThrow();
    const before = await db.selectFrom('orders').select(['order_state', sql<string>`doc::text`.as('doc'), sql<string>`preview_doc::text`.as('preview_doc')]).where('order_id', '=', id).executeTakeFirstOrThrow();
    const actor = { kind: 'system' as const, component: 'test' };
    await assert.rejects(
      changeOrder(db, clock, id, actor, { to: 'Failed', reason: 'x', edit: (o) => void ((o as { order_title?: string }).order_title = undefined) }),
      OrderRenderError,
    );
    // A failure after the write, inside the same transaction: the write is undone with it.
    await assert.rejects(
      db.transaction().execute(async (trx) => {
        const { changeOrderIn } = await import('./order-lifecycle.service.js');
        await changeOrderIn(trx, clock, id, actor, { to: 'Failed', reason: 'x', edit: (o) => void (o.order_title = 'changed') });
        throw new Error('later step failed');
      }),
      /later step failed/,
    );
    const afterRow = await db.selectFrom('orders').select(['order_state', sql<string>`doc::text`.as('doc'), sql<string>`preview_doc::text`.as('preview_doc')]).where('order_id', '=', id).executeTakeFirstOrThrow();
    assert.deepEqual(afterRow, before);
  });
});

after(removeTemporaryObjectStorages);
