/**
 * `ai_detection`: asks the external detection service (an adapter behind `DetectionService`) about the
 * image and judges its answer with the order's thresholds (detection-mapping.ts). Without a configured
 * service the check does not run at all: no entry, and the order waits for a person.
 *
 * What is sent (detection/detection-image.ts): for PNG, JPEG and WebP within the adapter's size limit,
 * the original's image data without its metadata (EXIF, GPS above all, XMP, IPTC, C2PA); otherwise (PSD,
 * TIFF, larger files) the JPEG preview certdesk renders, which carries none. Regions are normalized 0..1,
 * so they hold for the original whichever rendition was sent.
 */
import type { AnalysisCheck, AnalysisSubject, CheckOutcome } from './analysis-check.js';
import { assetFormat } from './asset-format.js';
import { judgeDetection, type DetectionThresholds } from './detection/detection-mapping.js';
import { detectionImage } from './detection/detection-image.js';
import type { DetectionService } from './detection/detection-protocol.js';
import { PREVIEW_FACT } from './layer.check.js';
import { renderPreview } from './rendering/render.js';

export interface AiDetectionDeps {
  service: DetectionService | null;
  thresholdsFor(subject: AnalysisSubject): Promise<DetectionThresholds>;
}

export function aiDetectionCheck(deps: AiDetectionDeps): AnalysisCheck {
  return {
    name: 'ai_detection',
    async run(context): Promise<CheckOutcome> {
      const service = deps.service;
      if (!service) return { outcome: 'not_run' };
      const format = await assetFormat(context);
      const bytes = await context.readAll();
      const image = await detectionImage(bytes, format, service.maxRequestBytes, async () => {
        const cached = context.facts.get(PREVIEW_FACT);
        return Buffer.isBuffer(cached) ? cached : renderPreview(bytes, format);
      });
      const [answer, thresholds] = await Promise.all([service.detect(image, context.signal), deps.thresholdsFor(context.subject)]);
      const verdict = judgeDetection(answer, thresholds, context.subject.assetKey);
      if (verdict.passed) return { outcome: 'passed', facts: { score: verdict.score }, annotations: verdict.annotations, failedItems: verdict.failedItems };
      return {
        outcome: 'failed',
        reason: `weighted score ${verdict.score} above weighted_confidence_threshold ${thresholds.weighted_confidence_threshold}`,
        annotations: verdict.annotations,
        failedItems: verdict.failedItems,
      };
    },
  };
}
