/**
 * `layer_check`: renders the preview of every accepted file and, for a PSD, one PNG per pixel layer, and
 * stores them under the organization's prefix; the order then carries `asset_preview_key` (served as the
 * presigned `asset_preview_url`) and its `layers` (served as `layers_info`). It passes once the renderings
 * are stored; an undecodable file fails the job at once (`Failed`).
 */
import type { AnalysisCheck, CheckOutcome } from './analysis-check.js';
import { assetFormat } from './asset-format.js';
import { PREVIEW_CONTENT_TYPE } from './rendering/render.js';
import { layerObjectKey, previewObjectKey } from './rendition-keys.js';

/** Facts key of the rendered preview bytes (ai_detection sends them for formats a service cannot read). */
export const PREVIEW_FACT = 'preview';

export const layerCheck: AnalysisCheck = {
  name: 'layer_check',
  async run(context): Promise<CheckOutcome> {
    const { organizationId, orderId } = context.subject;
    const format = await assetFormat(context);
    const { preview, layers } = await context.decoder.render(await context.readAll(), format, context.signal);
    context.signal.throwIfAborted();
    const previewKey = previewObjectKey(organizationId, orderId);
    await context.storage.put(previewKey, preview, PREVIEW_CONTENT_TYPE);
    const stored: Array<{ layer_name: string; key: string }> = [];
    for (const [i, layer] of layers.entries()) {
      const key = layerObjectKey(organizationId, orderId, i + 1);
      await context.storage.put(key, layer.png, 'image/png');
      stored.push({ layer_name: layer.name.slice(0, 500), key });
    }
    context.facts.set(PREVIEW_FACT, preview);
    return { outcome: 'passed', facts: { layers: stored.length }, renditions: { previewKey, layers: stored } };
  },
};
