/**
 * Property: every generated order is consistent with its state along the lifecycle of docs/lifecycle.md,
 * whatever the seed and index (the demo page must never show "Human Certified" beside a failed check).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import type { OrderInputT } from '../domain/orders/order-input.schema.js';
import { ANALYSIS_CHECKS, DEMO_FLAG_THRESHOLD, generateOrder, QUIET_BELOW, type OrderGeneratorOptions } from './order-generator.js';

const options = (seed: number): OrderGeneratorOptions => ({
  seed,
  prefix: 'prop',
  people: [{ email: 'ada@example.com', username: 'ada' }],
  projectIds: [null],
  reviewerEmail: 'reviewer@example.com',
  newest: new Date('2026-06-01T12:00:00Z'),
  previewKey: (i) => `previews/${i}.png`,
  layerKeys: (i) => (i % 2 === 0 ? [{ layer_name: 'Background', key: `layers/${i}.png` }] : []),
});

/** Every rule of the table in docs/lifecycle.md, for one order. */
function assertAlongLifecycle(o: OrderInputT): void {
  const what = `${o.order_id} (${o.order_state})`;
  const analysis = o.analysis_list ?? [];
  const failedItems = o.analysis_failed_items ?? [];
  const notes = o.annotations ?? [];
  const failing = analysis.filter((a) => !a.analysis_passed);
  const reviewed = o.reviewed_by != null;
  assert.deepEqual(analysis.map((a) => a.analysis_type), ANALYSIS_CHECKS.slice(0, analysis.length), `${what}: checks run in order`);
  assert.equal(reviewed, o.review_timestamp != null, `${what}: reviewer and review time go together`);
  if (reviewed) assert.ok(Date.parse(o.review_timestamp!) > Date.parse(o.creation_time), `${what}: reviewed after creation`);
  // A failed item is exactly a region above the threshold, and names its region once.
  const ids = new Set(notes.map((a) => a.id));
  assert.equal(failedItems.length, notes.filter((a) => (a.properties?.ai_likelihood ?? 0) > DEMO_FLAG_THRESHOLD).length, `${what}: failed items`);
  for (const item of failedItems) assert.ok(item.annotation_ids!.every((id) => ids.has(id)), `${what}: failed item points to a region`);
  for (const a of notes) {
    const p = a.properties?.ai_likelihood ?? 0;
    assert.ok(p > DEMO_FLAG_THRESHOLD || p < QUIET_BELOW, `${what}: no region between the projects' thresholds`);
  }
  if (o.order_state !== 'Unsupported File' && analysis.length > 0) assert.equal(analysis[0]!.analysis_passed, true, `${what}: file type accepted`);
  if (notes.length > 0) assert.ok(analysis.some((a) => a.analysis_type === 'ai_detection'), `${what}: regions come from ai_detection`);
  if ((o.layers ?? []).length > 0) assert.match(o.asset_name, /\.psd$/, `${what}: only a PSD has layers`);

  switch (o.order_state) {
    case 'In Progress':
      assert.equal(failing.length, 0, `${what}: nothing failed yet`);
      assert.equal(failedItems.length, 0, `${what}: no failed item unanswered`);
      assert.equal(reviewed, false, `${what}: no reviewer yet`);
      break;
    case 'Unsupported File':
      assert.deepEqual(analysis, [{ analysis_type: 'file_type', analysis_passed: false }], `${what}: only a failed file_type`);
      assert.equal(o.asset_preview_key, null, `${what}: no preview`);
      assert.deepEqual(o.layers, [], `${what}: no layers`);
      assert.equal(notes.length + failedItems.length, 0, `${what}: nothing after file_type`);
      assert.equal(reviewed, false, `${what}: no reviewer`);
      assert.doesNotMatch(o.asset_name, /\.(psd|png|tiff|jpg|webp)$/, `${what}: not an accepted format`);
      break;
    case 'Action Required':
      assert.equal(analysis.length, ANALYSIS_CHECKS.length, `${what}: analysis done`);
      assert.ok(failedItems.length > 0 && notes.length > 0, `${what}: flagged regions`);
      assert.ok(failing.some((a) => a.analysis_type === 'ai_detection'), `${what}: detection failed`);
      assert.equal(reviewed, false, `${what}: not certified nor reviewed`);
      break;
    case 'Human Certified':
      assert.equal(analysis.length, ANALYSIS_CHECKS.length, `${what}: analysis done`);
      assert.equal(failing.length, 0, `${what}: every check passed`);
      assert.equal(failedItems.length, 0, `${what}: no failed item`);
      assert.ok(reviewed, `${what}: certified by a reviewer`);
      break;
    case 'Reviewed':
      assert.equal(analysis.length, ANALYSIS_CHECKS.length, `${what}: analysis done`);
      assert.ok(reviewed, `${what}: reviewer set`);
      break;
    case 'Failed':
      assert.equal(analysis.length, ANALYSIS_CHECKS.length, `${what}: analysis done`);
      assert.ok(failing.length > 0 || reviewed, `${what}: a failing check or a reviewer's refusal`);
      break;
  }
}

describe('demo orders follow the lifecycle', () => {
  it('holds for every state over many seeds and indexes', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 2 ** 31 - 1 }), fc.nat(1_000_000), (seed, index) => {
        // Six consecutive indexes cover the six states.
        for (let i = index; i < index + 6; i++) assertAlongLifecycle(generateOrder(options(seed), i));
      }),
      { numRuns: 500 },
    );
  });

  it('gives each state every variant the lifecycle allows', () => {
    const orders = Array.from({ length: 3000 }, (_, i) => generateOrder(options(7), i));
    const of = (state: string) => orders.filter((o) => o.order_state === state);
    assert.ok(of('Failed').some((o) => o.reviewed_by != null && (o.analysis_list ?? []).every((a) => a.analysis_passed)), 'a reviewer refusal');
    assert.ok(of('Failed').some((o) => (o.analysis_list ?? []).some((a) => !a.analysis_passed)), 'a failing check');
    assert.ok(of('In Progress').some((o) => (o.analysis_list ?? []).length < ANALYSIS_CHECKS.length), 'analysis partly done');
    assert.ok(of('In Progress').some((o) => (o.analysis_list ?? []).length === ANALYSIS_CHECKS.length), 'waiting for a reviewer');
    assert.ok(of('Reviewed').some((o) => (o.analysis_failed_items ?? []).length > 0), 'findings recorded');
  });
});
