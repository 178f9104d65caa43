/**
 * The analysis checks certdesk runs, in order: `file_type` (gatekeeper), `metadata`, `layer_check`
 * (preview and layers), `ai_detection` (only with a detection service configured).
 */
import type { Executor } from '../../storage/database.js';
import { findDetectionThresholds } from '../projects/detection-thresholds.repository.js';
import { aiDetectionCheck } from './ai-detection.check.js';
import type { AnalysisCheck } from './analysis-check.js';
import type { DetectionService } from './detection/detection-protocol.js';
import { fileTypeCheck } from './file-type.check.js';
import { layerCheck } from './layer.check.js';
import { metadataCheck } from './metadata.check.js';

export interface AnalysisCheckDeps {
  db: Executor;
  /** null: no service configured, `ai_detection` is not run. */
  detection: DetectionService | null;
}

export function analysisChecks(deps: AnalysisCheckDeps): AnalysisCheck[] {
  return [
    fileTypeCheck,
    metadataCheck,
    layerCheck,
    aiDetectionCheck({ service: deps.detection, thresholdsFor: (s) => findDetectionThresholds(deps.db, s.organizationId, s.projectId) }),
  ];
}
