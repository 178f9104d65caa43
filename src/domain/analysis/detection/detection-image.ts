/**
 * The image the detection service is sent for an asset (docs/detection-service.md, "What is sent"): never
 * the uploaded file as is, since its metadata (EXIF with GPS, XMP, IPTC, C2PA) is nothing the service
 * needs and may locate or name the photographer.
 *
 * - PNG, JPEG and WebP within the size limit: the original's image data without its metadata
 *   (strip-metadata.ts, lossless), a JPEG keeping its orientation; checked with libvips afterwards (same
 *   format and size, no EXIF beyond the orientation, no XMP, IPTC or text).
 * - Everything else (PSD, TIFF, larger files), a PNG or WebP whose orientation lives only in its EXIF, and
 *   a container the stripper cannot walk or the check does not confirm: the JPEG preview certdesk renders,
 *   which libvips writes without any metadata.
 */
import { loadSharp } from '../image-libraries.js';
import { PREVIEW_CONTENT_TYPE } from '../rendering/render.js';
import { DETECTION_IMAGE_TYPES } from './detection-protocol.js';
import { stripMetadata } from './strip-metadata.js';

export interface DetectionImage {
  bytes: Buffer;
  contentType: string;
}

type SentFormat = 'png' | 'jpeg' | 'webp';

/** The original without metadata, or null when the preview must be sent instead. */
export async function metadataFreeOriginal(bytes: Buffer, format: SentFormat): Promise<Buffer | null> {
  const sharp = await loadSharp();
  try {
    const before = await sharp(bytes).metadata();
    const orientation = before.orientation ?? 1;
    if (format !== 'jpeg' && orientation !== 1) return null;
    const stripped = stripMetadata(bytes, format, orientation);
    const after = await sharp(stripped).metadata();
    const clean =
      after.format === before.format &&
      after.width === before.width &&
      after.height === before.height &&
      (after.orientation ?? 1) === orientation &&
      after.xmp === undefined &&
      after.iptc === undefined &&
      (after.comments ?? []).length === 0 &&
      // The only EXIF left is the orientation block written back (a few dozen bytes, no GPS IFD possible).
      (after.exif === undefined || (orientation !== 1 && after.exif.length <= 64));
    return clean ? stripped : null;
  } catch {
    return null; // a container the stripper cannot walk: the rendered preview goes instead
  }
}

/**
 * What is sent for an asset of `format` (as `file_type` detected it).
 * @param preview renders (or returns the cached) JPEG preview
 */
export async function detectionImage(bytes: Buffer, format: string, maxRequestBytes: number, preview: () => Promise<Buffer>): Promise<DetectionImage> {
  const contentType = DETECTION_IMAGE_TYPES[format];
  if (contentType && bytes.length <= maxRequestBytes) {
    const original = await metadataFreeOriginal(bytes, format as SentFormat);
    if (original) return { bytes: original, contentType };
  }
  return { bytes: await preview(), contentType: PREVIEW_CONTENT_TYPE };
}
