/**
 * Judges metadata fields and the C2PA store: every way the file declares that a generator made it. Only
 * software fields and digital source type fields are read as declarations (generator-declarations.ts);
 * credit, source and rights fields naming a company are attributions, never findings.
 */
import { findC2paStore, c2paAiSourceType } from './c2pa.js';
import { declaredSourceType, generatorProduct, isDigitalSourceTypeField, isSoftwareField } from './generator-declarations.js';
import type { MetadataField } from './read-metadata.js';

export interface GeneratorFinding {
  kind: 'digital_source_type' | 'generator_software' | 'c2pa';
  /** Where it was declared, e.g. `xmp Iptc4xmpExt.DigitalSourceType`. */
  where: string;
  /** What was declared: the source type code or the product name. */
  declared: string;
}

/** Text chunk keywords that Stable Diffusion front ends write with the generation settings. */
function promptChunk(field: MetadataField): string | null {
  if (field.source !== 'png-text') return null;
  if (field.name === 'parameters' && /\bSteps: \d+/.test(field.value) && /\bSampler: /.test(field.value)) return 'Stable Diffusion';
  if ((field.name === 'prompt' || field.name === 'workflow') && field.value.includes('"class_type"')) return 'ComfyUI';
  return null;
}

export function generatorFindings(fields: readonly MetadataField[], bytes: Buffer): GeneratorFinding[] {
  const findings: GeneratorFinding[] = [];
  const seen = new Set<string>();
  const add = (f: GeneratorFinding) => {
    const key = `${f.kind}|${f.where}|${f.declared}`;
    if (!seen.has(key)) { seen.add(key); findings.push(f); }
  };
  for (const field of fields) {
    const where = `${field.source} ${field.name}`;
    const sourceType = isDigitalSourceTypeField(field) ? declaredSourceType(field.value) : null;
    if (sourceType) add({ kind: 'digital_source_type', where, declared: sourceType });
    const product = isSoftwareField(field) ? generatorProduct(field.value) : promptChunk(field);
    if (product) add({ kind: 'generator_software', where, declared: product });
  }
  const store = findC2paStore(bytes);
  const c2paType = store ? c2paAiSourceType(store) : null;
  if (c2paType) add({ kind: 'c2pa', where: 'c2pa manifest', declared: c2paType });
  return findings;
}
