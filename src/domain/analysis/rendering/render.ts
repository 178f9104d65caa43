/**
 * Renderings of an accepted asset, made with sharp: a preview (JPEG, at most PREVIEW_MAX_EDGE pixels on
 * its longer edge, never enlarged) for every accepted format, and one PNG per pixel layer of a PSD.
 * A PSD's preview is its stored composite image. A file that cannot be decoded (truncated, corrupt)
 * throws: the analysis job is retried, and fails for good when it keeps throwing.
 */
import type { Sharp } from 'sharp';
import { DEFAULT_IMAGE_LIMITS, psdMemoryLimit, type ImageLimits } from '../decoding/image-limits.js';
import { loadSharp } from '../image-libraries.js';
import { pixelLayers, readPsdFile, type RgbaImage } from './psd.js';

export const PREVIEW_MAX_EDGE = 1024;
export const PREVIEW_CONTENT_TYPE = 'image/jpeg';

export interface RenderedLayer {
  name: string;
  png: Buffer;
}

/**
 * Fail on any decoder warning (a truncated PNG or JPEG is an error, not a half-grey picture); refuse to
 * decode more pixels than the header check let through.
 */
const inputOptions = (limits: ImageLimits) => ({ failOn: 'warning', limitInputPixels: limits.maxImagePixels }) as const;

/** 8-bit RGBA bytes of a layer (deep PSDs keep 16-bit integer or 32-bit float channels). */
function rgba8(image: RgbaImage): Buffer {
  const source = image.data;
  if (source instanceof Uint8Array || source instanceof Uint8ClampedArray) return Buffer.from(source.buffer, source.byteOffset, source.byteLength);
  const out = Buffer.alloc(source.length);
  const scale = source instanceof Uint16Array ? 255 / 65535 : 255;
  for (let i = 0; i < source.length; i++) out[i] = Math.max(0, Math.min(255, Math.round(source[i]! * scale)));
  return out;
}

async function fromRgba(image: RgbaImage): Promise<Sharp> {
  const data = rgba8(image);
  const sharp = await loadSharp();
  return sharp(data, { raw: { width: image.width, height: image.height, channels: 4 } });
}

function previewOf(image: Sharp): Promise<Buffer> {
  return image
    .rotate() // honour EXIF orientation
    .resize({ width: PREVIEW_MAX_EDGE, height: PREVIEW_MAX_EDGE, fit: 'inside', withoutEnlargement: true })
    .flatten({ background: '#ffffff' })
    // No Huffman optimisation pass: it costs about 40% of the encode for a few percent of bytes.
    .jpeg({ quality: 80, optimiseCoding: false })
    .toBuffer();
}

/** The preview of a PNG, JPEG, WebP or TIFF (`format` as `file_type` detected it), or of a PSD. */
export async function renderPreview(bytes: Buffer, format: string, limits: ImageLimits = DEFAULT_IMAGE_LIMITS): Promise<Buffer> {
  if (format === 'psd') {
    const psd = await readPsdFile(bytes, { layers: false, composite: true }, psdMemoryLimit(limits));
    if (!psd.imageData) throw new Error('the PSD has no composite image to preview');
    return previewOf(await fromRgba(psd.imageData));
  }
  const sharp = await loadSharp();
  return previewOf(sharp(bytes, inputOptions(limits)));
}

/** The preview and, for a PSD, every pixel layer as a PNG, from one read of the file. */
export async function renderAsset(bytes: Buffer, format: string, limits: ImageLimits = DEFAULT_IMAGE_LIMITS): Promise<{ preview: Buffer; layers: RenderedLayer[] }> {
  if (format !== 'psd') return { preview: await renderPreview(bytes, format, limits), layers: [] };
  const psd = await readPsdFile(bytes, { layers: true, composite: true }, psdMemoryLimit(limits));
  if (!psd.imageData) throw new Error('the PSD has no composite image to preview');
  const preview = await previewOf(await fromRgba(psd.imageData));
  const layers: RenderedLayer[] = [];
  for (const layer of pixelLayers(psd)) layers.push({ name: layer.name, png: await (await fromRgba(layer.image)).png().toBuffer() });
  return { preview, layers };
}
