/**
 * The asset's format for the checks after `file_type`: its fact when `file_type` ran in this attempt,
 * else sniffed again from the first bytes (a retried job skips checks that already have their entry).
 */
import { fileTypeFromBuffer } from 'file-type';
import type { AnalysisContext } from './analysis-check.js';
import { ACCEPTED_FORMATS } from './file-type.check.js';

export async function assetFormat(context: AnalysisContext): Promise<string> {
  const known = context.facts.get('format');
  if (typeof known === 'string') return known;
  const detected = await fileTypeFromBuffer(await context.readHead(4100));
  const format = detected ? ACCEPTED_FORMATS[detected.ext] : undefined;
  if (!format) throw new Error('the asset is not in an accepted format, yet file_type passed it');
  context.facts.set('format', format);
  return format;
}
