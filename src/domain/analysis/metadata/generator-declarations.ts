/**
 * What counts as a file declaring its own generator (docs/lifecycle.md: the `metadata` check fails on these). The
 * lists are deliberately small and explicit: a declaration is something a tool wrote into the file, not a
 * guess about its pixels (that is `ai_detection`'s job).
 */

import type { MetadataSource } from './read-metadata.js';

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
 * The fields that name the software that produced or edited the file, by where they were read (field
 * names as read-metadata.ts spells them). Only these are matched against GENERATOR_SOFTWARE:
 * - EXIF `Software` and `ProcessingSoftware` (IFD0);
 * - XMP `xmp:CreatorTool`, its EXIF mirror `tiff:Software`, and each `xmpMM:History` event's
 *   `stEvt:softwareAgent`;
 * - IPTC IIM `OriginatingProgram` (2:65);
 * - PNG text `Software`, `Source` and `Generator`: the PNG specification defines `Source` as "the device
 *   used to create the image" (a tool, not an attribution), and generators write their name there.
 *
 * Credit and rights fields are NOT declarations, whatever company they name: `photoshop:Source`,
 * `photoshop:Credit`, `dc:source`, `dc:rights`, `dc:creator`, IPTC `Source` (2:115), `Credit` (2:110),
 * `CopyrightNotice`, EXIF `Artist`/`Copyright`... A photo desk called "Midjourney Inc." or a picture
 * credited to "OpenAI" says who supplied or owns it, not what made it.
 */
const SOFTWARE_FIELDS: Readonly<Record<MetadataSource, RegExp>> = {
  exif: /^ifd0\.(software|processingsoftware)$/i,
  xmp: /^(xmp\.creatortool|tiff\.software|xmpmm\.history(\[\d+\])?\.softwareagent)$/i,
  iptc: /^originatingprogram$/i,
  'png-text': /^(software|source|generator)$/i,
};

/** Whether the field names the software that made the file (SOFTWARE_FIELDS). */
export function isSoftwareField(field: { source: MetadataSource; name: string }): boolean {
  return SOFTWARE_FIELDS[field.source].test(field.name);
}

/**
 * Whether the field is a digital source type statement: XMP `Iptc4xmpExt:DigitalSourceType` (and the
 * same property under another prefix, e.g. `plus:`). A caption or keyword that merely contains the IPTC
 * vocabulary's URL is not one.
 */
export function isDigitalSourceTypeField(field: { name: string }): boolean {
  return /(^|\.)digitalsourcetype$/i.test(field.name);
}

/** Digital source type codes a value declares, e.g. `…/digitalsourcetype/trainedAlgorithmicMedia`. */
export function declaredSourceType(value: string): string | null {
  const at = value.indexOf(DIGITAL_SOURCE_TYPE_VOCABULARY);
  const code = at >= 0 ? value.slice(at + DIGITAL_SOURCE_TYPE_VOCABULARY.length).match(/^[A-Za-z]+/)?.[0] : value.trim();
  return code && AI_DIGITAL_SOURCE_TYPES.includes(code) ? code : null;
}

export function generatorProduct(value: string): string | null {
  return GENERATOR_SOFTWARE.find((g) => g.pattern.test(value))?.product ?? null;
}
