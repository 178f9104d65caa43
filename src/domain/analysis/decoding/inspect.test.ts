import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { layeredPsd } from '../../../../test/helpers/analysis-files.js';
import { manyLayerPsd } from '../../../../test/helpers/hostile-files.js';
import { DEFAULT_IMAGE_LIMITS } from './image-limits.js';
import { inspectImage, psdDeclaredLayerRecords, quickVerdict } from './inspect.js';

describe('the PSD layer count read from lengths alone', () => {
  it('is the count the file declares', async () => {
    assert.equal(psdDeclaredLayerRecords(manyLayerPsd(3000)), 3000);
    assert.equal(psdDeclaredLayerRecords(manyLayerPsd(7)), 7);
    const layered = layeredPsd();
    const full = await inspectImage(layered, 'psd', DEFAULT_IMAGE_LIMITS);
    assert.ok(full.accepted);
    assert.ok(psdDeclaredLayerRecords(layered)! >= full.layers, 'never fewer records than the layers the full check counts');
  });

  it('is null when the bytes end before it, and never throws on any bytes', () => {
    const file = manyLayerPsd(20);
    for (let end = 0; end < 200; end++) {
      const value = psdDeclaredLayerRecords(file.subarray(0, end));
      assert.ok(value === null || value === 20, `${end} bytes: ${value}`);
    }
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 96 }), fc.constantFrom(1, 2), (tail, version) => {
        const head = Buffer.alloc(6);
        head.write('8BPS', 0, 'latin1');
        head.writeUInt16BE(version, 4);
        const value = psdDeclaredLayerRecords(Buffer.concat([head, tail]));
        assert.ok(value === null || (Number.isInteger(value) && value >= 0 && value <= 32768));
      }),
    );
  });

  it('refuses before any decoding only above twice the limit (a group is two records); the full check judges the rest', () => {
    const refused = quickVerdict(manyLayerPsd(3000), 'psd', DEFAULT_IMAGE_LIMITS);
    assert.ok(refused && !refused.accepted);
    assert.match(refused.reason, /3000 layers.*ANALYSIS_MAX_LAYERS/);
    assert.equal(quickVerdict(manyLayerPsd(2 * DEFAULT_IMAGE_LIMITS.maxLayers), 'psd', DEFAULT_IMAGE_LIMITS), null);
    assert.equal(quickVerdict(manyLayerPsd(600), 'psd', DEFAULT_IMAGE_LIMITS), null);
  });
});
