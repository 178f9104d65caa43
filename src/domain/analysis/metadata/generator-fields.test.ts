/**
 * Which metadata fields declare a generator (generator-declarations.ts): software and digital source type
 * fields do; credit, source and rights fields do not, whatever company they name. Every case reads a
 * real file built by the test (test/helpers/metadata-files.ts) through the production reader.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { exifJpeg, iptcJpeg, xmpImage, xmpPng, xmpWith, type XmpFields } from '../../../../test/helpers/metadata-files.js';
import { generatorFindings } from './generator-findings.js';
import { readMetadataFields, type MetadataField } from './read-metadata.js';

const AI_SOURCE_TYPE = 'http://cv.iptc.org/newscodes/digitalsourcetype/trainedAlgorithmicMedia';

/** Credits and rights naming generator companies: what a photo agency's files really carry. */
const CREDITS: XmpFields = {
  simple: {
    'photoshop:Source': 'Midjourney Inc. photo desk',
    'photoshop:Credit': 'OpenAI',
    'photoshop:AuthorsPosition': 'Staff photographer, Stability AI',
  },
  dcSource: 'Midjourney Inc. photo desk',
  dcRights: '© 2025 OpenAI. All rights reserved.',
  dcCreator: ['Jane Doe for DALL-E Studios', 'Adobe Firefly Team'],
  // A caption that cites the IPTC vocabulary is not a digital source type statement.
  dcDescription: `Shot on film; our policy on ${AI_SOURCE_TYPE} is on the website`,
};

async function read(bytes: Buffer, format: string): Promise<{ fields: MetadataField[]; found: ReturnType<typeof generatorFindings> }> {
  const fields = await readMetadataFields(bytes, format);
  return { fields, found: generatorFindings(fields, bytes) };
}

function hasField(fields: MetadataField[], name: string, value: string): boolean {
  return fields.some((f) => f.name === name && f.value.includes(value));
}

describe('metadata: credit fields naming a company are not a declaration', () => {
  const xmpFiles: Array<[string, string, () => Promise<Buffer>]> = [
    ['a JPEG (XMP in APP1)', 'jpeg', () => xmpImage('jpeg', xmpWith(CREDITS))],
    ['a WebP (XMP chunk)', 'webp', () => xmpImage('webp', xmpWith(CREDITS))],
    ['a PNG (XMP in an iTXt chunk)', 'png', () => xmpPng(xmpWith(CREDITS))],
  ];
  for (const [what, format, make] of xmpFiles) {
    it(`XMP photoshop:Source, photoshop:Credit, dc:source, dc:rights, dc:creator, dc:description in ${what}`, async () => {
      const { fields, found } = await read(await make(), format);
      // The fields were read (the test would prove nothing otherwise) ...
      assert.ok(hasField(fields, 'photoshop.Source', 'Midjourney Inc. photo desk'), JSON.stringify(fields));
      assert.ok(hasField(fields, 'photoshop.Credit', 'OpenAI'));
      assert.ok(hasField(fields, 'dc.source', 'Midjourney Inc. photo desk'));
      assert.ok(fields.some((f) => f.name.startsWith('dc.creator') && f.value.includes('DALL-E Studios')));
      assert.ok(fields.some((f) => f.name.startsWith('dc.description') && f.value.includes(AI_SOURCE_TYPE)));
      // ... and none is a declaration.
      assert.deepEqual(found, []);
    });
  }

  it('IPTC IIM Source (2:115), Credit (2:110) and CopyrightNotice (2:116) in a JPEG (APP13)', async () => {
    const { fields, found } = await read(await iptcJpeg({ 115: 'Midjourney Inc. photo desk', 110: 'OpenAI', 116: '© Stable Diffusion Photo Agency', 80: 'Leonardo.Ai staff' }), 'jpeg');
    assert.ok(hasField(fields, 'Source', 'Midjourney Inc. photo desk') && hasField(fields, 'Credit', 'OpenAI'), JSON.stringify(fields));
    assert.deepEqual(found, []);
  });

  it('EXIF Artist and Copyright', async () => {
    const { fields, found } = await read(await exifJpeg({ Artist: 'Midjourney Inc. photo desk', Copyright: 'OpenAI' }), 'jpeg');
    assert.ok(hasField(fields, 'ifd0.Artist', 'Midjourney') && hasField(fields, 'ifd0.Copyright', 'OpenAI'), JSON.stringify(fields));
    assert.deepEqual(found, []);
  });
});

describe('metadata: real software and digital source type fields are still caught, next to credits', () => {
  it('XMP xmpMM:History softwareAgent (the first event) in a JPEG', async () => {
    const { found } = await read(await xmpImage('jpeg', xmpWith({ ...CREDITS, historyAgents: ['Adobe Firefly Image 3', 'Adobe Photoshop 25.0'] })), 'jpeg');
    assert.deepEqual(found, [{ kind: 'generator_software', where: 'xmp xmpMM.History[0].softwareAgent', declared: 'Adobe Firefly' }]);
  });

  it('XMP tiff:Software and xmp:CreatorTool in a PNG iTXt packet', async () => {
    const packet = xmpWith({ ...CREDITS, simple: { ...CREDITS.simple, 'tiff:Software': 'Midjourney v6', 'xmp:CreatorTool': 'DALL-E 3' } });
    const { found } = await read(await xmpPng(packet), 'png');
    assert.deepEqual(found.map((f) => [f.where, f.declared]).sort(), [['xmp tiff.Software', 'Midjourney'], ['xmp xmp.CreatorTool', 'DALL-E']]);
  });

  it('XMP Iptc4xmpExt:DigitalSourceType trainedAlgorithmicMedia in a PNG iTXt packet', async () => {
    const packet = xmpWith({ ...CREDITS, simple: { ...CREDITS.simple, 'Iptc4xmpExt:DigitalSourceType': AI_SOURCE_TYPE } });
    const { found } = await read(await xmpPng(packet), 'png');
    assert.deepEqual(found, [{ kind: 'digital_source_type', where: 'xmp Iptc4xmpExt.DigitalSourceType', declared: 'trainedAlgorithmicMedia' }]);
  });

  it('IPTC OriginatingProgram (2:65), while IPTC Source naming the same company is not', async () => {
    const { found } = await read(await iptcJpeg({ 115: 'Midjourney Inc. photo desk', 65: 'Midjourney' }), 'jpeg');
    assert.deepEqual(found, [{ kind: 'generator_software', where: 'iptc OriginatingProgram', declared: 'Midjourney' }]);
  });

  it('EXIF Software, while EXIF Artist naming another generator is not', async () => {
    const { found } = await read(await exifJpeg({ Software: 'Stable Diffusion XL 1.0', Artist: 'OpenAI DALL-E team' }), 'jpeg');
    assert.deepEqual(found, [{ kind: 'generator_software', where: 'exif ifd0.Software', declared: 'Stable Diffusion' }]);
  });
});
