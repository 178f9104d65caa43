import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import sharp from 'sharp';
import { stableDiffusionPng, softwareTaggedJpeg, xmpPacket } from '../../../../test/helpers/analysis-files.js';
import { hugeXmpPng } from '../../../../test/helpers/hostile-files.js';
import { metadataBlockSizes } from './metadata-blocks.js';

const withXmp = (format: 'jpeg' | 'png' | 'webp' | 'tiff') =>
  sharp({ create: { width: 8, height: 8, channels: 3, background: '#888' } }).withXmp(xmpPacket('digitalCapture')).toFormat(format).toBuffer();

describe('metadata block sizes from the container structure', () => {
  it('finds the XMP block of PNG, JPEG, WebP and TIFF files', async () => {
    const packet = Buffer.byteLength(xmpPacket('digitalCapture'));
    for (const format of ['png', 'jpeg', 'webp', 'tiff'] as const) {
      const { xmp } = metadataBlockSizes(await withXmp(format), format);
      // libvips may compress the packet (PNG iTXt): the declared block, not the text, is what is counted.
      assert.ok(xmp > 100 && xmp < packet + 200, `${format}: ${xmp} bytes for a ${packet}-byte packet`);
    }
  });

  it('counts a 16 MiB XMP chunk, PNG text and JPEG EXIF, without reading them', async () => {
    assert.ok(metadataBlockSizes(await hugeXmpPng(), 'png').xmp > 16 * 1024 * 1024);
    assert.ok(metadataBlockSizes(await stableDiffusionPng(), 'png').text > 50);
    assert.ok(metadataBlockSizes(await softwareTaggedJpeg('Midjourney'), 'jpeg').exif > 20);
  });

  it('reports what it found when a length points past the end', async () => {
    const png = await hugeXmpPng(4096);
    assert.deepEqual(metadataBlockSizes(png.subarray(0, 100), 'png').text, 0);
    assert.deepEqual(metadataBlockSizes(Buffer.from('II*\0\xff\xff\xff\xff', 'latin1'), 'tiff'), { exif: 0, xmp: 0, iptc: 0, text: 0 });
  });
});
