import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { flatImage, layeredPsd, truncatedPng } from '../../../../test/helpers/analysis-files.js';
import { hugeXmpPng, jpegBomb, manyLayerPsd, pngBomb, psdBomb, tiffBomb, truncatedJpeg } from '../../../../test/helpers/hostile-files.js';
import { PermanentJobError } from '../../background/job-handler.js';
import { DecoderPool } from './decoder-pool.js';
import { inProcessDecoder } from './image-decoder.js';
import { DEFAULT_IMAGE_LIMITS, type ImageLimits } from './image-limits.js';

const refusedFor = async (decoder: { inspect(b: Buffer, f: string): Promise<{ accepted: boolean; reason?: string }> }, bytes: Buffer, format: string, setting: string) => {
  const verdict = await decoder.inspect(bytes, format);
  assert.equal(verdict.accepted, false, `${format} accepted`);
  assert.match(verdict.reason!, new RegExp(setting));
};

describe('decoding in worker threads: header limits, undecodable files, crashed threads', () => {
  const pool = new DecoderPool({ limits: DEFAULT_IMAGE_LIMITS, threads: 1, heapMb: 256 });
  after(() => pool.close());

  it('refuses bombs from their headers, naming the limit', async () => {
    await refusedFor(pool, psdBomb(), 'psd', 'ANALYSIS_MAX_IMAGE_PIXELS');
    await refusedFor(pool, pngBomb(), 'png', 'ANALYSIS_MAX_IMAGE_PIXELS');
    await refusedFor(pool, await jpegBomb(), 'jpeg', 'ANALYSIS_MAX_IMAGE_PIXELS');
    await refusedFor(pool, await tiffBomb(), 'tiff', 'ANALYSIS_MAX_IMAGE_PIXELS');
    await refusedFor(pool, manyLayerPsd(600), 'psd', 'ANALYSIS_MAX_LAYERS');
    await refusedFor(pool, await hugeXmpPng(5 * 1024 * 1024), 'png', 'ANALYSIS_MAX_METADATA_BYTES');
  });

  it('accepts, renders and reads ordinary files through the threads (Buffers back)', async () => {
    const psd = layeredPsd();
    assert.deepEqual(await pool.inspect(psd, 'psd'), { accepted: true, width: 48, height: 32, layers: 4 });
    const { preview, layers } = await pool.render(psd, 'psd');
    assert.ok(Buffer.isBuffer(preview) && preview.length > 0);
    assert.deepEqual(layers.map((l) => [l.name, Buffer.isBuffer(l.png)]), [['Background', true], ['Drawing / Sketch', true], ['Ink', true]]);
    assert.deepEqual(await pool.readMetadata(await flatImage('png'), 'png'), []);
  });

  it('throws PermanentJobError for truncated files', async () => {
    await assert.rejects(pool.render(await truncatedPng(), 'png'), PermanentJobError);
    await assert.rejects(pool.render(await truncatedJpeg(), 'jpeg'), PermanentJobError);
    await assert.rejects(pool.inspect(psdBomb(24, 16).subarray(0, 20), 'psd'), PermanentJobError);
  });

  it('blames a file that exhausts its thread\'s heap (PermanentJobError), and the next file decodes', async () => {
    // Limits that let a 16 MiB XMP block through to exifr, in a thread with a 32 MB heap.
    const crashes: string[] = [];
    const small = new DecoderPool({ limits: { ...DEFAULT_IMAGE_LIMITS, maxMetadataBytes: 64 * 1024 * 1024 }, threads: 1, heapMb: 32, onThreadCrash: (_e, blamed) => crashes.push(blamed) });
    try {
      const err = await small.readMetadata(await hugeXmpPng(), 'png').then(() => null, (e: unknown) => e);
      assert.ok(err instanceof PermanentJobError, `expected PermanentJobError, got ${String(err)}`);
      assert.match(err.message, /crashed its decoder thread \(ERR_WORKER_OUT_OF_MEMORY/);
      assert.deepEqual(crashes, ['file']);
      assert.deepEqual(await small.inspect(await flatImage('png'), 'png'), { accepted: true, width: 40, height: 30, layers: 0 });
    } finally {
      await small.close();
    }
  });
});

describe('header limits of PSD layers (in-process decoder)', () => {
  const limited = (l: Partial<ImageLimits>) => inProcessDecoder({ ...DEFAULT_IMAGE_LIMITS, ...l });

  it('refuses a layer above the per-layer limit and layers above the total', async () => {
    // layeredPsd: Background 48×32 (1536), Sketch 20×10 (200), Ink 16×12 (192)
    await refusedFor(limited({ maxLayerPixels: 1000 }), layeredPsd(), 'psd', 'layer "Background".*ANALYSIS_MAX_LAYER_PIXELS');
    await refusedFor(limited({ maxTotalPixels: 1800 }), layeredPsd(), 'psd', 'ANALYSIS_MAX_TOTAL_PIXELS');
    await refusedFor(limited({ maxLayers: 3 }), layeredPsd(), 'psd', '4 layers.*ANALYSIS_MAX_LAYERS');
    assert.equal((await limited({ maxLayerPixels: 1536, maxTotalPixels: 1928, maxLayers: 4 }).inspect(layeredPsd(), 'psd')).accepted, true);
  });

  it('never hands an over-limit metadata block to exifr (a file the header check let through)', async () => {
    const decoder = limited({ maxMetadataBytes: 1024 });
    await assert.rejects(decoder.readMetadata(await hugeXmpPng(4096), 'png'), (e: unknown) => e instanceof PermanentJobError && /xmp block .* above the limit/.test(e.message));
  });
});
