/**
 * Reading PSD files with ag-psd without a canvas: ag-psd only needs a way to allocate RGBA pixel buffers
 * (`useImageData: true`), so certdesk hands it plain objects and encodes pixels with sharp itself. A
 * canvas is never created; a PSD feature that would need one (a JPEG-compressed thumbnail) is skipped.
 */
import type { Layer, PixelData, Psd } from 'ag-psd';
import { loadAgPsd } from '../image-libraries.js';

let initialized = false;

function ensureCanvasFree(initializeCanvas: Awaited<ReturnType<typeof loadAgPsd>>['initializeCanvas']): void {
  if (initialized) return;
  initializeCanvas(
    () => {
      throw new Error('certdesk reads PSD pixels without a canvas');
    },
    (width, height) => ({ width, height, data: new Uint8ClampedArray(width * height * 4), colorSpace: 'srgb' }) as ImageData,
  );
  initialized = true;
}

/** width × height RGBA pixels, not premultiplied; 8-bit, or 16/32-bit channels from deep PSDs. */
export type RgbaImage = PixelData;

/** A pixel layer of a PSD, its name given as the path of its groups (`Group / Ink`). */
export interface PsdLayer {
  name: string;
  image: RgbaImage;
}

const readOptions = { useImageData: true, skipThumbnail: true, skipLinkedFilesData: true } as const;

/**
 * Reads a PSD's header, image resources (XMP), layer records and, on request, its layers' pixels and
 * composite image. `memoryLimit` caps the bytes ag-psd allocates for pixels (its `totalMemoryLimit`;
 * default: ag-psd's own 2 GiB): above it the read throws instead of allocating.
 * @throws when the file is not a readable PSD (truncated, corrupt) or needs more than `memoryLimit`
 */
export async function readPsdFile(bytes: Buffer, want: { layers: boolean; composite: boolean }, memoryLimit?: number): Promise<Psd> {
  const { initializeCanvas, readPsd } = await loadAgPsd();
  ensureCanvasFree(initializeCanvas);
  return readPsd(bytes, {
    ...readOptions,
    skipLayerImageData: !want.layers,
    skipCompositeImageData: !want.composite,
    ...(memoryLimit !== undefined ? { totalMemoryLimit: memoryLimit } : {}),
  });
}

/** Every layer that has pixels, groups flattened into `Group / Layer` names, bottom to top as stored. */
export function pixelLayers(psd: Psd): PsdLayer[] {
  const out: PsdLayer[] = [];
  const walk = (layers: readonly Layer[] | undefined, prefix: string) => {
    for (const layer of layers ?? []) {
      const name = `${prefix}${layer.name ?? 'Layer'}`;
      if (layer.children) walk(layer.children, `${name} / `);
      else if (layer.imageData && layer.imageData.width > 0 && layer.imageData.height > 0) out.push({ name, image: layer.imageData });
    }
  };
  walk(psd.children, '');
  return out;
}
