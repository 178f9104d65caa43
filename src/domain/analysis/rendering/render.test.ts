import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import sharp from 'sharp';
import { flatImage, layeredPsd, noisePng, truncatedPng, truncatedPsd } from '../../../../test/helpers/analysis-files.js';
import { PREVIEW_MAX_EDGE, renderAsset, renderPreview } from './render.js';

describe('rendering: previews and PSD layers', () => {
  for (const format of ['png', 'jpeg', 'webp', 'tiff'] as const) {
    it(`renders a JPEG preview of a ${format}, same size when small`, async () => {
      const preview = await renderPreview(await flatImage(format, 40, 30), format);
      const meta = await sharp(preview).metadata();
      assert.deepEqual([meta.format, meta.width, meta.height], ['jpeg', 40, 30]);
    });
  }

  it(`shrinks a large image to at most ${PREVIEW_MAX_EDGE} pixels on its longer edge, keeping the aspect`, async () => {
    const meta = await sharp(await renderPreview(await noisePng(2000, 500), 'png')).metadata();
    assert.deepEqual([meta.width, meta.height], [PREVIEW_MAX_EDGE, 256]);
  });

  it('renders a PSD: its composite as preview, each pixel layer as a PNG named by its group path', async () => {
    const { preview, layers } = await renderAsset(layeredPsd(), 'psd');
    const meta = await sharp(preview).metadata();
    assert.deepEqual([meta.format, meta.width, meta.height], ['jpeg', 48, 32]);
    const { data } = await sharp(preview).raw().toBuffer({ resolveWithObject: true });
    assert.ok(Math.abs(data[0]! - 220) <= 3 && Math.abs(data[2]! - 200) <= 3, `composite colour, got ${data.subarray(0, 3).join(',')}`);
    assert.deepEqual(layers.map((l) => l.name), ['Background', 'Drawing / Sketch', 'Ink']);
    const ink = await sharp(layers[2]!.png).raw().toBuffer({ resolveWithObject: true });
    assert.deepEqual([ink.info.width, ink.info.height, ink.info.channels], [16, 12, 4]);
    assert.deepEqual([...ink.data.subarray(0, 4)], [0, 0, 255, 128]);
  });

  it('renders no layers for a flat file', async () => {
    assert.deepEqual((await renderAsset(await flatImage('png'), 'png')).layers, []);
  });

  it('throws on a truncated PNG and a truncated PSD (the decoders turn it into PermanentJobError)', async () => {
    await assert.rejects(renderAsset(await truncatedPng(), 'png'));
    await assert.rejects(renderAsset(truncatedPsd(), 'psd'));
  });
});
