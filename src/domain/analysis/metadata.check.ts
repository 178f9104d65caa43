/**
 * `metadata`: fails when the file's own metadata declares a generator (generator-findings.ts: IPTC/XMP
 * digital source type, generator software tags, Stable Diffusion text chunks, a C2PA claim). Each
 * declaration becomes an `analysis_failed_items` entry of type `metadata` naming where it was found.
 */
import type { AnalysisCheck, CheckOutcome } from './analysis-check.js';
import { assetFormat } from './asset-format.js';
import { generatorFindings } from './metadata/generator-findings.js';

export const METADATA_ITEM_TYPE = 'metadata';

export const metadataCheck: AnalysisCheck = {
  name: 'metadata',
  async run(context): Promise<CheckOutcome> {
    const format = await assetFormat(context);
    const bytes = await context.readAll();
    const findings = generatorFindings(await context.decoder.readMetadata(bytes, format, context.signal), bytes);
    if (findings.length === 0) return { outcome: 'passed' };
    return {
      outcome: 'failed',
      reason: `declares a generator: ${findings.map((f) => `${f.declared} (${f.where})`).join('; ')}`,
      failedItems: findings.map((f) => ({
        type: METADATA_ITEM_TYPE,
        name: `${f.where}: ${f.declared}`,
        storage_path: context.subject.assetKey,
        ai_likelihood: 1,
        annotation_ids: [],
        annotation_id: null,
      })),
    };
  },
};
