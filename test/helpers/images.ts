/**
 * Real image files for intake tests, made on the spot: PNG (the demo's encoder), JPEG, WebP and TIFF
 * (sharp), a truncated PNG and a text file renamed to .png.
 */
import sharp from 'sharp';
import { encodePng } from '../../src/demo/png.js';

export function pngBytes(width = 8, height = 6): Buffer {
  const rgb = new Uint8Array(width * height * 3);
  for (let i = 0; i < rgb.length; i++) rgb[i] = (i * 37) % 256;
  return encodePng(width, height, rgb);
}

export async function jpegBytes(width = 8, height = 6): Promise<Buffer> {
  return sharp(pngBytes(width, height)).jpeg({ quality: 80 }).toBuffer();
}

export async function webpBytes(): Promise<Buffer> {
  return sharp(pngBytes()).webp().toBuffer();
}

export async function tiffBytes(): Promise<Buffer> {
  return sharp(pngBytes()).tiff().toBuffer();
}

/** A PNG cut in the middle of its image data: the right magic number, not a decodable image. */
export function truncatedPngBytes(): Buffer {
  const full = pngBytes(64, 64);
  return full.subarray(0, Math.floor(full.length / 2));
}

/** Plain text, whatever its name says. */
export function textBytes(): Buffer {
  return Buffer.from('This is not an image, whatever the file name says.\n'.repeat(20));
}
