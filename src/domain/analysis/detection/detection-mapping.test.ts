import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { Ajv } from 'ajv';
import { Annotation, FailedAnalysisItem } from '../../../contract/schemas.js';
import { parseDetectionResponse, type DetectionResponseT } from './detection-protocol.js';
import { judgeDetection } from './detection-mapping.js';

// The interface's schemas as the HTTP layer checks them (Ajv: TypeBox's Value cannot check Unsafe enums).
const isAnnotation = new Ajv({ strict: false }).compile(Annotation);
const isFailedItem = new Ajv({ strict: false }).compile(FailedAnalysisItem);

const thresholds = { object_flag_threshold: 0.6, weighted_confidence_threshold: 0.5 };

describe('detection answers → annotations, failed items, verdict', () => {
  it('maps a rectangle and a polygon to the interface Annotation shape', () => {
    const verdict = judgeDetection(
      {
        score: 0.7,
        regions: [
          { label: 'hand', confidence: 0.9, geometry: { type: 'RECTANGLE', x: 0.1, y: 0.2, w: 0.3, h: 0.4 } },
          { label: 'sky', confidence: 0.6, geometry: { type: 'POLYGON', points: [[0.5, 0.1], [0.9, 0.2], [0.7, 0.4]] } },
        ],
      },
      thresholds,
      'orgs/o/uploads/u',
    );
    assert.equal(verdict.passed, false);
    assert.deepEqual(verdict.annotations, [
      {
        id: 'ai_detection-1',
        bodies: [{ value: 'hand', id: 'ai_detection-1-label', annotation: 'ai_detection-1' }],
        properties: { needs_remediation: true, ai_likelihood: 0.9 },
        target: { annotation: 'ai_detection-1', selector: { type: 'RECTANGLE', geometry: { bounds: { minX: 0.1, minY: 0.2, maxX: 0.1 + 0.3, maxY: 0.2 + 0.4 }, x: 0.1, y: 0.2, w: 0.3, h: 0.4, points: null } } },
      },
      {
        id: 'ai_detection-2',
        bodies: [{ value: 'sky', id: 'ai_detection-2-label', annotation: 'ai_detection-2' }],
        properties: { needs_remediation: false, ai_likelihood: 0.6 },
        target: { annotation: 'ai_detection-2', selector: { type: 'POLYGON', geometry: { bounds: { minX: 0.5, minY: 0.1, maxX: 0.9, maxY: 0.4 }, x: null, y: null, w: null, h: null, points: [[0.5, 0.1], [0.9, 0.2], [0.7, 0.4]] } } },
      },
    ]);
    // Only the region above object_flag_threshold (0.9 > 0.6; 0.6 is not above) is a failed item.
    assert.deepEqual(verdict.failedItems, [{ type: 'ai_region', name: 'hand', storage_path: 'orgs/o/uploads/u', ai_likelihood: 0.9, annotation_ids: ['ai_detection-1'], annotation_id: 'ai_detection-1' }]);
  });

  it('the weighted score decides: above the threshold fails, at or below passes (even with flagged regions)', () => {
    const flagged = [{ label: 'x', confidence: 0.99, geometry: { type: 'RECTANGLE' as const, x: 0, y: 0, w: 1, h: 1 } }];
    assert.equal(judgeDetection({ score: 0.5, regions: flagged }, thresholds, 'k').passed, true);
    assert.equal(judgeDetection({ score: 0.500001, regions: [] }, thresholds, 'k').passed, false);
    assert.equal(judgeDetection({ score: 0.5, regions: flagged }, thresholds, 'k').failedItems.length, 1);
  });

  it('every protocol-valid answer maps to schema-valid annotations and items, bounds inside 0..1', () => {
    const unit = fc.double({ min: 0, max: 1, noNaN: true });
    const rect = fc.tuple(unit, unit, unit, unit).map(([x, y, a, b]) => ({ type: 'RECTANGLE' as const, x, y, w: a * (1 - x), h: b * (1 - y) }));
    const poly = fc.array(fc.tuple(unit, unit), { minLength: 3, maxLength: 8 }).map((points) => ({ type: 'POLYGON' as const, points }));
    const region = fc.record({ label: fc.string({ minLength: 1, maxLength: 20 }), confidence: unit, geometry: fc.oneof(rect, poly) });
    fc.assert(
      fc.property(fc.record({ score: unit, regions: fc.array(region, { maxLength: 6 }) }), unit, unit, (answer, o, w) => {
        const parsed: DetectionResponseT = parseDetectionResponse(answer);
        const verdict = judgeDetection(parsed, { object_flag_threshold: o, weighted_confidence_threshold: w }, 'key');
        assert.equal(verdict.annotations.length, answer.regions.length);
        assert.equal(verdict.failedItems.length, answer.regions.filter((r) => r.confidence > o).length);
        assert.equal(verdict.passed, answer.score <= w);
        for (const a of verdict.annotations) {
          assert.ok(isAnnotation(a), JSON.stringify(isAnnotation.errors));
          const { bounds } = (a.target as { selector: { geometry: { bounds: { minX: number; minY: number; maxX: number; maxY: number } } } }).selector.geometry;
          assert.ok(bounds.minX >= 0 && bounds.minY >= 0 && bounds.maxX <= 1 + 1e-9 && bounds.maxY <= 1 + 1e-9 && bounds.minX <= bounds.maxX && bounds.minY <= bounds.maxY);
        }
        for (const item of verdict.failedItems) assert.ok(isFailedItem(item), JSON.stringify(isFailedItem.errors));
      }),
    );
  });
});
