/**
 * The header check of the analysis: what a file declares (image size, PSD layer records, metadata block
 * sizes), read without decoding a pixel, against the configured limits. Metadata block sizes come from the
 * container's structure first (metadata-blocks.ts), then sharp's `metadata()` reads the headers only; a PSD's canvas size comes from its 26-byte header before ag-psd sees the file, its layers from
 * ag-psd's structure read (layer records, no image data, no composite).
 */
import type { Layer } from 'ag-psd';
import { loadSharp } from '../image-libraries.js';
import { readPsdFile } from '../rendering/psd.js';
import { mebibytes, megapixels, psdMemoryLimit, type ImageLimits } from './image-limits.js';
import { metadataBlockSizes } from './metadata-blocks.js';

/** What the header check concluded: the file may be decoded, or the limit it is above. */
export type Inspection =
  | { accepted: true; width: number; height: number; layers: number }
  | { accepted: false; reason: string };

/** The file's header cannot be read: truncated, corrupt, or not the format its magic number claims. */
export class UndecodableFileError extends Error {
  override name = 'UndecodableFileError';
}

const refuse = (reason: string): Inspection => ({ accepted: false, reason });

function imageVerdict(width: number, height: number, limits: ImageLimits): Inspection | null {
  const pixels = width * height;
  if (pixels > limits.maxImagePixels) {
    return refuse(`the image is ${width}×${height} pixels (${megapixels(pixels)}), above the limit of ${megapixels(limits.maxImagePixels)} per image (ANALYSIS_MAX_IMAGE_PIXELS)`);
  }
  return null;
}

function blockVerdict(what: string, bytes: number, limits: ImageLimits): Inspection | null {
  if (bytes > limits.maxMetadataBytes) {
    return refuse(`its ${what} is ${mebibytes(bytes)}, above the limit of ${mebibytes(limits.maxMetadataBytes)} per metadata block (ANALYSIS_MAX_METADATA_BYTES)`);
  }
  return null;
}

/** Width and height from the PSD/PSB file header (signature, version, reserved, channels, height, width). */
export function psdHeaderSize(bytes: Buffer): { width: number; height: number } {
  if (bytes.length < 26 || bytes.toString('latin1', 0, 4) !== '8BPS') throw new UndecodableFileError('the PSD header is missing or truncated');
  const version = bytes.readUInt16BE(4);
  if (version !== 1 && version !== 2) throw new UndecodableFileError(`unknown PSD version ${version}`);
  return { height: bytes.readUInt32BE(14), width: bytes.readUInt32BE(18) };
}

function layerRecords(layers: readonly Layer[] | undefined, out: Layer[] = []): Layer[] {
  for (const layer of layers ?? []) {
    out.push(layer);
    layerRecords(layer.children, out);
  }
  return out;
}

async function inspectPsd(bytes: Buffer, limits: ImageLimits): Promise<Inspection> {
  const { width, height } = psdHeaderSize(bytes);
  const image = imageVerdict(width, height, limits);
  if (image) return image;
  let psd;
  try {
    psd = await readPsdFile(bytes, { layers: false, composite: false }, psdMemoryLimit(limits));
  } catch (err) {
    throw new UndecodableFileError(`the PSD structure cannot be read: ${(err as Error).message}`, { cause: err });
  }
  const records = layerRecords(psd.children);
  if (records.length > limits.maxLayers) {
    return refuse(`the PSD has ${records.length} layers, above the limit of ${limits.maxLayers} (ANALYSIS_MAX_LAYERS)`);
  }
  let total = 0;
  for (const layer of records) {
    const w = Math.max(0, (layer.right ?? 0) - (layer.left ?? 0));
    const h = Math.max(0, (layer.bottom ?? 0) - (layer.top ?? 0));
    if (w * h > limits.maxLayerPixels) {
      return refuse(`its layer "${(layer.name ?? 'Layer').slice(0, 100)}" is ${w}×${h} pixels (${megapixels(w * h)}), above the limit of ${megapixels(limits.maxLayerPixels)} per layer (ANALYSIS_MAX_LAYER_PIXELS)`);
    }
    total += w * h;
  }
  if (total > limits.maxTotalPixels) {
    return refuse(`its layers hold ${megapixels(total)} together, above the limit of ${megapixels(limits.maxTotalPixels)} (ANALYSIS_MAX_TOTAL_PIXELS)`);
  }
  const xmp = psd.imageResources?.xmpMetadata;
  const metadata = xmp ? blockVerdict('XMP block', Buffer.byteLength(xmp, 'utf8'), limits) : null;
  if (metadata) return metadata;
  return { accepted: true, width, height, layers: records.length };
}

/**
 * The number of layer records a PSD/PSB declares (the count at the start of its Layer Info), found by
 * skipping the length-prefixed sections before it; null when the bytes end before it (or are not a PSD:
 * the full check judges). Never throws: it reads lengths only, each checked against the bytes.
 */
export function psdDeclaredLayerRecords(bytes: Buffer): number | null {
  if (bytes.length < 26 || bytes.toString('latin1', 0, 4) !== '8BPS') return null;
  const version = bytes.readUInt16BE(4);
  if (version !== 1 && version !== 2) return null;
  const wide = version === 2 ? 8 : 4; // PSB: the two lengths of the layer sections are 8 bytes
  let at = 26;
  for (const _section of ['color mode data', 'image resources']) {
    if (at + 4 > bytes.length) return null;
    at += 4 + bytes.readUInt32BE(at);
  }
  const length = (offset: number): number | null => (offset + wide > bytes.length ? null : wide === 8 ? Number(bytes.readBigUInt64BE(offset)) : bytes.readUInt32BE(offset));
  const layerAndMask = length(at);
  if (layerAndMask === null) return null;
  if (layerAndMask === 0) return 0;
  const layerInfo = length(at + wide);
  if (layerInfo === null) return null;
  if (layerInfo === 0) return 0;
  if (at + 2 * wide + 2 > bytes.length) return null;
  // Negative when the first alpha channel holds the merged transparency: the count is its absolute value.
  return Math.abs(bytes.readInt16BE(at + 2 * wide));
}

/**
 * Refuses from the declared record count alone only what the full check would refuse too: a group is two
 * records (its folder and its closing divider) but one layer there, so more than twice the limit of
 * records is more than the limit of layers whatever the grouping.
 */
function layerRecordsVerdict(records: number | null, limits: ImageLimits): Inspection | null {
  if (records === null || records <= 2 * limits.maxLayers) return null;
  return refuse(`the PSD declares ${records} layers (records, groups counted twice), above the limit of ${limits.maxLayers} (ANALYSIS_MAX_LAYERS)`);
}

/**
 * The part of the header check that needs no library: a PSD's canvas size, the declared sizes of the
 * metadata blocks. Cheap (lengths only, a bounded walk), so the pool runs it before copying a file to a
 * decoder thread; null: nothing refused so far.
 */
export function quickVerdict(bytes: Buffer, format: string, limits: ImageLimits): Inspection | null {
  if (format === 'psd') {
    if (bytes.length < 26 || bytes.toString('latin1', 0, 4) !== '8BPS') return null; // the full check throws
    return imageVerdict(bytes.readUInt32BE(18), bytes.readUInt32BE(14), limits) ?? layerRecordsVerdict(psdDeclaredLayerRecords(bytes), limits);
  }
  // The blocks' declared sizes first, from the container's structure: libvips never loads an oversized one.
  const declared = metadataBlockSizes(bytes, format);
  return (
    blockVerdict('EXIF block', declared.exif, limits) ??
    blockVerdict('XMP block', declared.xmp, limits) ??
    blockVerdict('IPTC block', declared.iptc, limits) ??
    blockVerdict('PNG text', declared.text, limits)
  );
}

async function inspectRaster(bytes: Buffer, format: string, limits: ImageLimits): Promise<Inspection> {
  const oversized = quickVerdict(bytes, format, limits);
  if (oversized) return oversized;
  const sharp = await loadSharp();
  let meta;
  try {
    // Headers only; sharp's own pixel limit would answer with an error instead of the limit's name.
    meta = await sharp(bytes, { limitInputPixels: false }).metadata();
  } catch (err) {
    throw new UndecodableFileError(`the image header cannot be read: ${(err as Error).message}`, { cause: err });
  }
  if (!meta.width || !meta.height) throw new UndecodableFileError('the image header declares no size');
  const verdict =
    imageVerdict(meta.width, meta.height, limits) ??
    blockVerdict('EXIF block', meta.exif?.length ?? 0, limits) ??
    blockVerdict('XMP block', meta.xmp?.length ?? 0, limits) ??
    blockVerdict('IPTC block', meta.iptc?.length ?? 0, limits) ??
    blockVerdict('PNG text', (meta.comments ?? []).reduce((n, c) => n + c.keyword.length + c.text.length, 0), limits);
  return verdict ?? { accepted: true, width: meta.width, height: meta.height, layers: 0 };
}

/**
 * The header check of a file `file_type` accepted (`format`: png, jpeg, webp, tiff or psd).
 * @throws UndecodableFileError when the header cannot be read
 */
export function inspectImage(bytes: Buffer, format: string, limits: ImageLimits): Promise<Inspection> {
  return format === 'psd' ? inspectPsd(bytes, limits) : inspectRaster(bytes, format, limits);
}
