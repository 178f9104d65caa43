import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { Writable } from 'node:stream';
import { describeOnEachDatabase } from '../../../test/helpers/database.js';
import { temporaryObjectStorage, removeTemporaryObjectStorages } from '../../../test/helpers/fixtures.js';
import { buildDemoSeed, DEMO_ORGANIZATIONS, DEMO_PRIMARY, writeNdjsonOrders } from '../../demo/index.js';
import { recountOrderCounters } from '../orders/order.repository.js';
import { ImportError, importOrders } from './order-import.js';
import { loadSeed } from '../seed/seed.js';

/** Generated orders as NDJSON lines (no trailing newline handling: one string per order). */
async function generatedLines(count: number, seed = 7, organizationId = DEMO_PRIMARY.id): Promise<string[]> {
  let text = '';
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      text += chunk.toString('utf8');
      done();
    },
  });
  await writeNdjsonOrders(sink, { organizationId, count, seed });
  return text.split('\n').filter((l) => l !== '');
}

const input = (lines: string[]) => Readable.from([`${lines.join('\n')}\n`]);

async function expectImportError(promise: Promise<unknown>, message: RegExp): Promise<void> {
  await assert.rejects(promise, (err: unknown) => {
    assert.ok(err instanceof ImportError, `expected ImportError, got ${String(err)}`);
    assert.match(err.message, message);
    return true;
  });
}

describeOnEachDatabase('NDJSON order import', (getDb, target) => {
  const orderCount = async () => Number((await getDb().db.selectFrom('orders').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);
  const counterSum = async () =>
    Number((await getDb().db.selectFrom('order_counters').select((eb) => eb.fn.sum<number>('order_count').as('n')).executeTakeFirstOrThrow()).n ?? 0);

  before(async () => {
    await loadSeed(getDb().db, temporaryObjectStorage().storage, buildDemoSeed());
  });

  it('imports a generated file with exact counters, and refuses to import it again', async () => {
    const before = await orderCount();
    const lines = await generatedLines(2500);
    const progress: number[] = [];
    const report = await importOrders(getDb(), { organizationId: DEMO_PRIMARY.id, input: input(lines), progressEvery: 1000, onProgress: (p) => progress.push(p.orders) });
    assert.equal(report.orders, 2500);
    assert.deepEqual(progress, [1000, 2000, 2500]);
    assert.equal(await orderCount(), before + 2500);
    assert.equal(await counterSum(), before + 2500);
    assert.deepEqual(await recountOrderCounters(getDb().db, true), [], 'order_counters equal a recount');
    const stored = await getDb().db.selectFrom('orders').select(['organization_id', 'doc']).where('order_id', '=', JSON.parse(lines[42]!).order_id).executeTakeFirstOrThrow();
    assert.equal(stored.organization_id, DEMO_PRIMARY.id);
    assert.equal(JSON.parse(stored.doc).order_title, JSON.parse(lines[42]!).order_title);
    // Import only adds: the same file again is refused as a whole, naming the first order id.
    await expectImportError(
      importOrders(getDb(), { organizationId: DEMO_PRIMARY.id, input: input(lines) }),
      new RegExp(`^line 1: order_id: duplicate order id "${JSON.parse(lines[0]!).order_id}": it already exists in this organization`),
    );
    assert.equal(await orderCount(), before + 2500);
    assert.deepEqual(await recountOrderCounters(getDb().db, true), []);
  });

  it('stops at a bad line in the middle, names its line and field, and writes nothing', async () => {
    const before = await orderCount();
    const lines = await generatedLines(1200, 8);
    const bad = JSON.parse(lines[700]!);
    bad.order_state = 'Done';
    lines[700] = JSON.stringify(bad);
    await expectImportError(
      importOrders(getDb(), { organizationId: DEMO_PRIMARY.id, input: input(lines) }),
      /^line 701: order_state: must be one of "In Progress", "Human Certified", "Action Required", "Reviewed", "Failed", "Unsupported File"$/,
    );
    lines[700] = '{"order_id": ';
    await expectImportError(importOrders(getDb(), { organizationId: DEMO_PRIMARY.id, input: input(lines) }), /^line 701: not valid JSON/);
    const missing = JSON.parse(lines[3]!);
    delete missing.email;
    await expectImportError(importOrders(getDb(), { organizationId: DEMO_PRIMARY.id, input: input([lines[0]!, '', JSON.stringify(missing)]) }), /^line 3: email: is required$/);
    assert.equal(await orderCount(), before);
  });

  it('refuses a duplicate order id within the file, naming it and its line', async () => {
    const before = await orderCount();
    // Large enough to span several COPY chunks, so the server's refusal arrives mid-stream.
    const lines = await generatedLines(3000, 9);
    lines.splice(2800, 0, lines[10]!);
    await expectImportError(
      importOrders(getDb(), { organizationId: DEMO_PRIMARY.id, input: input(lines) }),
      new RegExp(`^line 2801: order_id: duplicate order id "${JSON.parse(lines[10]!).order_id}": it appears earlier in the file; nothing was imported$`),
    );
    assert.equal(await orderCount(), before);
    assert.deepEqual(await recountOrderCounters(getDb().db, true), []);
    // The same in COPY segments of 700 rows: the duplicate sits in the fifth segment, its line still exact.
    await expectImportError(
      importOrders(getDb(), { organizationId: DEMO_PRIMARY.id, input: input(lines), rowsPerCopy: 700 }),
      new RegExp(`^line 2801: order_id: duplicate order id "${JSON.parse(lines[10]!).order_id}": it appears earlier in the file; nothing was imported$`),
    );
    assert.equal(await orderCount(), before, 'segments that completed before the failure are rolled back too');
    assert.deepEqual(await recountOrderCounters(getDb().db, true), []);
  });

  it('imports in several COPY segments with the same rows and exact counters', async () => {
    const before = await orderCount();
    const lines = await generatedLines(1000, 11);
    const report = await importOrders(getDb(), { organizationId: DEMO_PRIMARY.id, input: input(lines), rowsPerCopy: 300 });
    assert.equal(report.orders, 1000);
    assert.equal(await orderCount(), before + 1000);
    assert.equal(await counterSum(), before + 1000);
    assert.deepEqual(await recountOrderCounters(getDb().db, true), [], 'order_counters equal a recount');
  });

  it('reads lines split across chunks, with CRLF line ends and blank lines, and names the right line', async () => {
    const before = await orderCount();
    const lines = await generatedLines(40, 12);
    // Blank lines (also whitespace-only) count as lines; chunks of 7 bytes cut lines and UTF-8 anywhere.
    const text = `${lines.slice(0, 10).join('\r\n')}\r\n\r\n  \n${lines.slice(10).join('\n')}`;
    const bytes = Buffer.from(text.replace('"order_title":"', '"order_title":"ünï 😀 '), 'utf8');
    const chunked = () => Readable.from((function* () {
      for (let i = 0; i < bytes.length; i += 7) yield bytes.subarray(i, i + 7);
    })());
    const report = await importOrders(getDb(), { organizationId: DEMO_PRIMARY.id, input: chunked(), rowsPerCopy: 15 });
    assert.equal(report.orders, 40);
    assert.equal(report.bytes, bytes.length);
    assert.equal(await orderCount(), before + 40);
    const first = await getDb().db.selectFrom('orders').select('doc').where('order_id', '=', JSON.parse(lines[0]!).order_id).executeTakeFirstOrThrow();
    assert.match(JSON.parse(first.doc).order_title, /^ünï 😀 /);
    assert.deepEqual(await recountOrderCounters(getDb().db, true), []);
    // The same file again: the duplicate is the first order, and line 13 (after two blank lines) is the 11th order.
    const renamed = lines.slice(0, 10).map((l) => JSON.stringify({ ...JSON.parse(l), order_id: `fresh-${JSON.parse(l).order_id}` }));
    const shifted = `${renamed.join('\r\n')}\r\n\r\n  \n${lines.slice(10).join('\n')}`;
    await expectImportError(
      importOrders(getDb(), { organizationId: DEMO_PRIMARY.id, input: Readable.from([shifted]), rowsPerCopy: 15 }),
      new RegExp(`^line 13: order_id: duplicate order id "${JSON.parse(lines[10]!).order_id}": it already exists in this organization`),
    );
    assert.equal(await orderCount(), before + 40);
  });

  // PostgreSQL only: PGlite has one connection, so nothing can delete a project while an import holds it.
  const onServer = target.name === 'postgres' ? it : () => undefined;
  onServer('names the line of an order whose project was deleted during the import (foreign key, checked per segment)', async () => {
    const before = await orderCount();
    const countersBefore = await counterSum();
    const projectId = '0a0a0a0a-0000-4000-8000-0000000000f1';
    await getDb().db.insertInto('projects').values({ id: projectId, organization_id: DEMO_PRIMARY.id, name: 'deleted during the import' }).execute();
    const lines = await generatedLines(400, 13);
    // Lines 281 and 290 name the project; it is deleted after the first 250 lines were read.
    for (const i of [280, 289]) lines[i] = JSON.stringify({ ...JSON.parse(lines[i]!), project_id: projectId });
    const input = Readable.from((async function* () {
      yield `${lines.slice(0, 250).join('\n')}\n`;
      // The import loaded the organization's project ids before it read a line, so only the foreign key
      // at the end of a segment can notice the project is gone.
      await getDb().db.deleteFrom('projects').where('id', '=', projectId).execute();
      yield `${lines.slice(250).join('\n')}\n`;
    })());
    await expectImportError(
      importOrders(getDb(), { organizationId: DEMO_PRIMARY.id, input, rowsPerCopy: 100 }),
      new RegExp(`^line 281: project_id: no project with this id in organization ${DEMO_PRIMARY.id} \\(deleted during the import\\); nothing was imported$`),
    );
    assert.equal(await orderCount(), before, 'the segments that completed are rolled back too');
    assert.equal(await counterSum(), countersBefore);
    assert.deepEqual(await recountOrderCounters(getDb().db, true), []);
  });

  it('reports a duplicate id before a later bad line: the first problem of the file', async () => {
    const before = await orderCount();
    const lines = await generatedLines(300, 14);
    lines.splice(150, 0, lines[20]!); // line 151 repeats line 21: refused in the second COPY segment
    lines[220] = '{"order_id": '; // line 221, in the third segment, is not JSON: read before the server refused line 151
    await expectImportError(
      importOrders(getDb(), { organizationId: DEMO_PRIMARY.id, input: input(lines), rowsPerCopy: 100 }),
      new RegExp(`^line 151: order_id: duplicate order id "${JSON.parse(lines[20]!).order_id}": it appears earlier in the file; nothing was imported$`),
    );
    assert.equal(await orderCount(), before);
  });

  it("refuses another organization's project id and an unknown organization", async () => {
    const before = await orderCount();
    const other = DEMO_ORGANIZATIONS[1]!;
    const lines = await generatedLines(50, 10);
    const foreign = JSON.parse(lines[20]!);
    foreign.project_id = other.projects[0]!.id;
    lines[20] = JSON.stringify(foreign);
    await expectImportError(
      importOrders(getDb(), { organizationId: DEMO_PRIMARY.id, input: input(lines) }),
      new RegExp(`^line 21: project_id: no project with this id in organization ${DEMO_PRIMARY.id}$`),
    );
    await expectImportError(importOrders(getDb(), { organizationId: '99999999-0000-4000-8000-000000000000', input: input(lines) }), /^no organization with id 99999999-0000-4000-8000-000000000000$/);
    await expectImportError(importOrders(getDb(), { organizationId: 'acme', input: input(lines) }), /must be a UUID/);
    assert.equal(await orderCount(), before);
  });

  it("refuses an order id that belongs to another organization", async () => {
    const other = DEMO_ORGANIZATIONS[1]!;
    const taken = buildDemoSeed().organizations[0]!.orders![0]!;
    // Without the other organization's object keys, which are refused on their own (object-keys.test.ts).
    const order = { ...taken, project_id: null, asset_preview_key: null, layers: [] };
    await expectImportError(
      importOrders(getDb(), { organizationId: other.id, input: input([JSON.stringify(order)]) }),
      new RegExp(`^line 1: order_id: duplicate order id "${taken.order_id}": it already belongs to another organization`),
    );
  });
});

// The temporary object storage folders this file made (test/helpers/fixtures.ts).
after(removeTemporaryObjectStorages);
