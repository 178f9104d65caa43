/**
 * What a detection answer means for an order: every region becomes an `annotation` (shape of the
 * interface's Annotation, geometry normalized 0..1); a region whose confidence is above the project's
 * `object_flag_threshold` also becomes an `analysis_failed_items` entry; the overall score above
 * `weighted_confidence_threshold` fails the check.
 */
import type { AnnotationT, FailedAnalysisItemT } from '../../../contract/schemas.js';
import type { DetectionRegionT, DetectionResponseT } from './detection-protocol.js';

/** The thresholds in force for an order (project → organization → built-in). */
export interface DetectionThresholds {
  object_flag_threshold: number;
  weighted_confidence_threshold: number;
}

export interface DetectionVerdict {
  passed: boolean;
  score: number;
  annotations: AnnotationT[];
  failedItems: FailedAnalysisItemT[];
}

export const DETECTION_ITEM_TYPE = 'ai_region';

/** Annotation ids are stable per order and check: `ai_detection-1`, `ai_detection-2`, … */
export const annotationId = (index: number): string => `ai_detection-${index + 1}`;

function geometryOf(region: DetectionRegionT): NonNullable<AnnotationT['target']>['selector'] {
  const g = region.geometry;
  if (g.type === 'RECTANGLE') {
    return { type: 'RECTANGLE', geometry: { bounds: { minX: g.x, minY: g.y, maxX: g.x + g.w, maxY: g.y + g.h }, x: g.x, y: g.y, w: g.w, h: g.h, points: null } };
  }
  const xs = g.points.map((p) => p[0]);
  const ys = g.points.map((p) => p[1]);
  return {
    type: 'POLYGON',
    geometry: { bounds: { minX: Math.min(...xs), minY: Math.min(...ys), maxX: Math.max(...xs), maxY: Math.max(...ys) }, x: null, y: null, w: null, h: null, points: g.points.map((p) => [p[0], p[1]]) },
  };
}

/**
 * @param storagePath the asset's object key (the item's `storage_path`: the regions lie on the asset)
 */
export function judgeDetection(response: DetectionResponseT, thresholds: DetectionThresholds, storagePath: string): DetectionVerdict {
  const annotations: AnnotationT[] = [];
  const failedItems: FailedAnalysisItemT[] = [];
  response.regions.forEach((region, index) => {
    const id = annotationId(index);
    const flagged = region.confidence > thresholds.object_flag_threshold;
    annotations.push({
      id,
      bodies: [{ value: region.label, id: `${id}-label`, annotation: id }],
      properties: { needs_remediation: flagged, ai_likelihood: region.confidence },
      target: { annotation: id, selector: geometryOf(region) },
    });
    if (flagged) {
      failedItems.push({ type: DETECTION_ITEM_TYPE, name: region.label, storage_path: storagePath, ai_likelihood: region.confidence, annotation_ids: [id], annotation_id: id });
    }
  });
  return { passed: !(response.score > thresholds.weighted_confidence_threshold), score: response.score, annotations, failedItems };
}
