/**
 * What counts as a file declaring its own generator (docs/lifecycle.md: the `metadata` check fails on these). The
 * lists are deliberately small and explicit: a declaration is something a tool wrote into the file, not a
 * guess about its pixels (that is `ai_detection`'s job).
 */

/**
 * IPTC digital source types (http://cv.iptc.org/newscodes/digitalsourcetype/) that say a model made the
 * picture, or a composite including generated parts. Written by generators and editors as XMP
 * `Iptc4xmpExt:DigitalSourceType`, and in C2PA actions as `digitalSourceType`.
 */
export const AI_DIGITAL_SOURCE_TYPES: readonly string[] = [
  'trainedAlgorithmicMedia',
  'compositeSynthetic',
  'compositeWithTrainedAlgorithmicMedia',
];

export const DIGITAL_SOURCE_TYPE_VOCABULARY = 'http://cv.iptc.org/newscodes/digitalsourcetype/';

/** Generator products, matched in software fields only (never in titles, captions or keywords). */
export const GENERATOR_SOFTWARE: ReadonlyArray<{ product: string; pattern: RegExp }> = [
  { product: 'Midjourney', pattern: /\bmidjourney\b/i },
  { product: 'DALL-E', pattern: /\bdall[-·‐ ]?e\b/i },
  { product: 'Stable Diffusion', pattern: /\bstable[\s_-]?diffusion\b|\bsdxl\b/i },
  { product: 'Adobe Firefly', pattern: /\bfirefly\b/i },
  { product: 'Google Imagen', pattern: /\bimagen\b/i },
  { product: 'NovelAI', pattern: /\bnovel\s?ai\b/i },
  { product: 'Leonardo.Ai', pattern: /\bleonardo\.ai\b/i },
  { product: 'Ideogram', pattern: /\bideogram\b/i },
  { product: 'ComfyUI', pattern: /\bcomfy\s?ui\b/i },
  { product: 'Bing Image Creator', pattern: /\bbing image creator\b/i },
  { product: 'Microsoft Designer', pattern: /\bmicrosoft designer\b/i },
];

/**
 * Metadata fields that name the software that produced the file: EXIF `Software`, XMP `CreatorTool` and
 * history `softwareAgent`, IPTC `OriginatingProgram`, PNG text `Software`/`Source`/`Generator`.
 */
export const SOFTWARE_FIELD = /(^|\.)(software|creatortool|softwareagent|originatingprogram|generator|source)$/i;

/** Digital source type codes a value declares, e.g. `…/digitalsourcetype/trainedAlgorithmicMedia`. */
export function declaredSourceType(value: string): string | null {
  const at = value.indexOf(DIGITAL_SOURCE_TYPE_VOCABULARY);
  const code = at >= 0 ? value.slice(at + DIGITAL_SOURCE_TYPE_VOCABULARY.length).match(/^[A-Za-z]+/)?.[0] : value.trim();
  return code && AI_DIGITAL_SOURCE_TYPES.includes(code) ? code : null;
}

export function generatorProduct(value: string): string | null {
  return GENERATOR_SOFTWARE.find((g) => g.pattern.test(value))?.product ?? null;
}
