import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  c2paJpeg, c2paPng, flatImage, layeredPsd, softwareTaggedJpeg, stableDiffusionPng, xmpDeclaredImage, xmpPacket,
} from '../../../../test/helpers/analysis-files.js';
import { generatorFindings } from './generator-findings.js';
import { readMetadataFields } from './read-metadata.js';

async function findings(bytes: Buffer, format: string) {
  return generatorFindings(await readMetadataFields(bytes, format), bytes);
}

describe('metadata: generator declarations read from real files', () => {
  for (const format of ['jpeg', 'png', 'webp'] as const) {
    for (const sourceType of ['trainedAlgorithmicMedia', 'compositeSynthetic']) {
      it(`flags XMP DigitalSourceType ${sourceType} in a ${format}`, async () => {
        const found = await findings(await xmpDeclaredImage(format, sourceType), format);
        assert.deepEqual(found, [{ kind: 'digital_source_type', where: 'xmp Iptc4xmpExt.DigitalSourceType', declared: sourceType }]);
      });
    }
    it(`does not flag a camera's digitalCapture in a ${format}`, async () => {
      const bytes = await xmpDeclaredImage(format, 'digitalCapture');
      const fields = await readMetadataFields(bytes, format);
      assert.ok(fields.some((f) => f.name === 'Iptc4xmpExt.DigitalSourceType' && f.value.endsWith('/digitalCapture')), 'the XMP was read');
      assert.deepEqual(generatorFindings(fields, bytes), []);
    });
  }

  it('flags a PSD whose XMP declares trainedAlgorithmicMedia and names Firefly as creator tool', async () => {
    const found = await findings(layeredPsd({ xmp: xmpPacket('trainedAlgorithmicMedia', 'Adobe Firefly Image 3') }), 'psd');
    assert.deepEqual(found.map((f) => [f.kind, f.declared]).sort(), [['digital_source_type', 'trainedAlgorithmicMedia'], ['generator_software', 'Adobe Firefly']]);
  });

  for (const [software, product] of [['DALL-E 3', 'DALL-E'], ['Midjourney v6.1', 'Midjourney'], ['Stable Diffusion XL 1.0', 'Stable Diffusion']] as const) {
    it(`flags EXIF Software "${software}"`, async () => {
      assert.deepEqual(await findings(await softwareTaggedJpeg(software), 'jpeg'), [{ kind: 'generator_software', where: 'exif ifd0.Software', declared: product }]);
    });
  }

  it('does not flag ordinary software (an editor, a camera firmware)', async () => {
    for (const software of ['Adobe Photoshop 25.0', 'GIMP 2.10.36', 'Ver.1.00']) {
      const bytes = await softwareTaggedJpeg(software);
      const fields = await readMetadataFields(bytes, 'jpeg');
      assert.ok(fields.some((f) => f.name === 'ifd0.Software' && f.value === software));
      assert.deepEqual(generatorFindings(fields, bytes), [], software);
    }
  });

  it('flags XMP CreatorTool "DALL·E 3" (UTF-8) next to a camera source type', async () => {
    const bytes = await xmpDeclaredImage('jpeg', 'digitalCapture', 'DALL·E 3');
    assert.deepEqual(await findings(bytes, 'jpeg'), [{ kind: 'generator_software', where: 'xmp xmp.CreatorTool', declared: 'DALL-E' }]);
  });

  it("flags the Stable Diffusion web UI's parameters text chunk", async () => {
    assert.deepEqual(await findings(await stableDiffusionPng(), 'png'), [{ kind: 'generator_software', where: 'png-text parameters', declared: 'Stable Diffusion' }]);
  });

  it('flags a C2PA store declaring trainedAlgorithmicMedia in a JPEG (APP11) and a PNG (caBX)', async () => {
    assert.deepEqual(await findings(await c2paJpeg(), 'jpeg'), [{ kind: 'c2pa', where: 'c2pa manifest', declared: 'trainedAlgorithmicMedia' }]);
    assert.deepEqual(await findings(await c2paPng('compositeSynthetic'), 'png'), [{ kind: 'c2pa', where: 'c2pa manifest', declared: 'compositeSynthetic' }]);
    assert.deepEqual(await findings(await c2paJpeg('digitalCapture'), 'jpeg'), []);
  });

  it('finds nothing in files without metadata', async () => {
    for (const format of ['png', 'jpeg', 'webp', 'tiff'] as const) assert.deepEqual(await findings(await flatImage(format), format), [], format);
    assert.deepEqual(await findings(layeredPsd(), 'psd'), []);
  });

  it('throws on bytes that are no image at all (the job retries, then fails)', async () => {
    await assert.rejects(readMetadataFields(Buffer.from('not an image'), 'png'));
  });
});
