/**
 * What the analysis agrees to decode. Every limit is checked against the file's headers (image size,
 * PSD layer records, metadata block sizes) before a single pixel is decoded; a file above any of them is
 * refused (`Unsupported File`), never decoded. The same numbers bound the decoders themselves
 * (sharp's `limitInputPixels`, ag-psd's `totalMemoryLimit`), which also bound their native memory:
 * V8's `resourceLimits` of a decoder thread do not cover pixel buffers.
 */
import type { Config } from '../../../config.js';

export interface ImageLimits {
  /** width × height of the image (a PSD's canvas). */
  maxImagePixels: number;
  /** width × height of one PSD layer's bounds. */
  maxLayerPixels: number;
  /** Sum of the pixels of every PSD layer. */
  maxTotalPixels: number;
  /** PSD layer records, groups included. */
  maxLayers: number;
  /** One EXIF, XMP or IPTC block, or the PNG text chunks together. */
  maxMetadataBytes: number;
}

/** The configuration's defaults: sizes a photographer never meets. */
export const DEFAULT_IMAGE_LIMITS: ImageLimits = {
  maxImagePixels: 100_000_000,
  maxLayerPixels: 100_000_000,
  maxTotalPixels: 1_000_000_000,
  maxLayers: 500,
  maxMetadataBytes: 4 * 1024 * 1024,
};

export function imageLimitsFrom(config: Pick<Config, 'analysisMaxImagePixels' | 'analysisMaxLayerPixels' | 'analysisMaxTotalPixels' | 'analysisMaxLayers' | 'analysisMaxMetadataBytes'>): ImageLimits {
  return {
    maxImagePixels: config.analysisMaxImagePixels,
    maxLayerPixels: config.analysisMaxLayerPixels,
    maxTotalPixels: config.analysisMaxTotalPixels,
    maxLayers: config.analysisMaxLayers,
    maxMetadataBytes: config.analysisMaxMetadataBytes,
  };
}

/**
 * ag-psd's `totalMemoryLimit` in bytes: RGBA at 8 bits of every layer plus the composite. A deep (16-bit)
 * PSD reaches it at half the pixels: its buffers are twice as large.
 */
export function psdMemoryLimit(limits: ImageLimits): number {
  return 4 * (limits.maxTotalPixels + limits.maxImagePixels);
}

/** `12,345,678` → `12.3 MP`, for reasons people read. */
export function megapixels(pixels: number): string {
  return `${(pixels / 1_000_000).toFixed(pixels < 10_000_000 ? 1 : 0)} MP`;
}

export function mebibytes(bytes: number): string {
  return `${(bytes / (1024 * 1024)).toFixed(1)} MiB`;
}
