/**
 * The metadata a file carries, as flat `name = value` fields: EXIF (IFD0/EXIF), XMP and IPTC blocks, and
 * PNG text chunks. sharp (libvips) finds the blocks in every accepted raster format, compressed PNG text
 * (`zTXt`/`iTXt`) and WebP included, and exifr decodes them; a PSD's XMP comes from its image resources
 * (ag-psd). Reading metadata never decodes pixels.
 */
import exifr from 'exifr';
import { DEFAULT_IMAGE_LIMITS, psdMemoryLimit, type ImageLimits } from '../decoding/image-limits.js';
import { loadSharp } from '../image-libraries.js';
import { readPsdFile } from '../rendering/psd.js';

export type MetadataSource = 'exif' | 'xmp' | 'iptc' | 'png-text';

export interface MetadataField {
  source: MetadataSource;
  /** Dotted path, e.g. `Iptc4xmpExt.DigitalSourceType`, `ifd0.Software`, `parameters`. */
  name: string;
  value: string;
}

/** Bounded: a field value longer than this is cut (metadata is text a client controls). */
const MAX_VALUE_CHARS = 4096;
const MAX_FIELDS = 2000;

function flatten(source: MetadataSource, value: unknown, name: string, out: MetadataField[]): void {
  if (out.length >= MAX_FIELDS || value === undefined || value === null) return;
  if (value instanceof Uint8Array || value instanceof ArrayBuffer) return; // thumbnails, maker notes
  if (Array.isArray(value)) {
    if (value.every((v) => typeof v !== 'object' || v === null)) out.push({ source, name, value: value.join(', ').slice(0, MAX_VALUE_CHARS) });
    else value.forEach((v, i) => flatten(source, v, `${name}[${i}]`, out));
    return;
  }
  if (value instanceof Date) { out.push({ source, name, value: value.toISOString() }); return; }
  if (typeof value === 'object') {
    for (const [key, inner] of Object.entries(value as Record<string, unknown>)) {
      if (key === 'xmlns') continue; // namespace declarations, not statements about the file
      flatten(source, inner, name ? `${name}.${key}` : key, out);
    }
    return;
  }
  out.push({ source, name, value: String(value).slice(0, MAX_VALUE_CHARS) });
}

const EXIF_OPTIONS = { tiff: true, exif: true, gps: false, interop: false, ifd1: false, xmp: false, iptc: false, icc: false, mergeOutput: false, translateValues: false } as const;

async function parseBlock(kind: 'exif' | 'xmp' | 'iptc', block: Buffer): Promise<unknown> {
  if (kind === 'exif') {
    // libvips hands EXIF over with its JPEG APP1 "Exif\0\0" prefix; exifr wants the TIFF structure itself.
    const tiff = block.subarray(0, 6).toString('latin1') === 'Exif\0\0' ? block.subarray(6) : block;
    return exifr.parse(tiff, EXIF_OPTIONS);
  }
  return exifr.sidecar(block, { mergeOutput: false }, kind);
}

async function addBlock(out: MetadataField[], kind: 'exif' | 'xmp' | 'iptc', block: Buffer | undefined, maxBlockBytes: number): Promise<void> {
  if (!block || block.length === 0) return;
  // Never handed to exifr: a 16 MiB XMP block costs it seconds of CPU and a gigabyte. The header check
  // (decoding/inspect.ts) refuses such a file first; this is the last line.
  if (block.length > maxBlockBytes) throw new Error(`the ${kind} block (${block.length} bytes) is above the limit of ${maxBlockBytes} bytes`);
  try {
    flatten(kind, await parseBlock(kind, block), '', out);
  } catch {
    // An undecodable block declares nothing; the image itself is judged by the other checks.
  }
}

/**
 * @param format as `file_type` detected it: png, jpeg, webp, tiff or psd
 * @param limits the header limits (`maxMetadataBytes`: larger blocks are never parsed)
 * @throws when the file's header cannot be read at all, or a block is above the limit
 */
export async function readMetadataFields(bytes: Buffer, format: string, limits: ImageLimits = DEFAULT_IMAGE_LIMITS): Promise<MetadataField[]> {
  const out: MetadataField[] = [];
  const max = limits.maxMetadataBytes;
  if (format === 'psd') {
    const xmp = (await readPsdFile(bytes, { layers: false, composite: false }, psdMemoryLimit(limits))).imageResources?.xmpMetadata;
    await addBlock(out, 'xmp', xmp ? Buffer.from(xmp, 'utf8') : undefined, max);
    return out;
  }
  const sharp = await loadSharp();
  const meta = await sharp(bytes).metadata();
  await addBlock(out, 'exif', meta.exif, max);
  await addBlock(out, 'xmp', meta.xmp, max);
  await addBlock(out, 'iptc', meta.iptc, max);
  for (const c of meta.comments ?? []) out.push({ source: 'png-text', name: c.keyword, value: c.text.slice(0, MAX_VALUE_CHARS) });
  return out;
}
