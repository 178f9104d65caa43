import type { Config } from '../../config.js';
import type { DetectionService } from '../../domain/analysis/detection/detection-protocol.js';
import { HttpDetectionService } from './http-detection-service.js';

export { DetectionRefusedError, DetectionServiceError, HttpDetectionService, MAX_RESPONSE_BYTES, REFUSED_STATUSES } from './http-detection-service.js';

/** The detection service the configuration names, or null when none is (`ai_detection` is then not run). */
export function detectionServiceFrom(
  config: Pick<Config, 'aiDetectionUrl' | 'aiDetectionKey' | 'aiDetectionTimeoutMs' | 'aiDetectionMaxBytes'>,
): DetectionService | null {
  if (!config.aiDetectionUrl || !config.aiDetectionKey) return null;
  return new HttpDetectionService({ url: config.aiDetectionUrl, key: config.aiDetectionKey, timeoutMs: config.aiDetectionTimeoutMs, maxRequestBytes: config.aiDetectionMaxBytes });
}
