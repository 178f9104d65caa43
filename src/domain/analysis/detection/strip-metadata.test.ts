/**
 * What the detection service is sent: real files with EXIF (GPS), XMP, IPTC, C2PA, comments and trailing
 * data, made by the test, lose every metadata block and keep their image data byte for byte (and so their
 * pixels), a JPEG its orientation and ICC profile.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import exifr from 'exifr';
import sharp from 'sharp';
import { c2paJpeg, c2paPng, flatImage, noisePng, truncatedPng } from '../../../../test/helpers/analysis-files.js';
import { iptcJpeg, xmpWith } from '../../../../test/helpers/metadata-files.js';
import { findC2paStore } from '../metadata/c2pa.js';
import { readMetadataFields } from '../metadata/read-metadata.js';
import { detectionImage, metadataFreeOriginal } from './detection-image.js';
import { MalformedImageError, stripJpeg, stripMetadata, stripPng, stripWebp } from './strip-metadata.js';

const GPS = { GPSLatitudeRef: 'N', GPSLatitude: '48/1 51/1 2964/100', GPSLongitudeRef: 'E', GPSLongitude: '2/1 17/1 4032/100' };
const XMP = xmpWith({ simple: { 'photoshop:City': 'Paris', 'xmp:CreatorTool': 'Camera firmware 1.0' }, dcCreator: ['Jane Doe'] });

/** A 48×32 image with varied pixels, ready for an encoder and metadata. */
const noisy = () =>
  sharp(Buffer.from(Array.from({ length: 48 * 32 * 3 }, (_, i) => (i * 7919) % 251)), { raw: { width: 48, height: 32, channels: 3 } });

async function pixels(bytes: Buffer): Promise<Buffer> {
  return sharp(bytes).raw().toBuffer();
}

/** Everything a reader finds in the file that is metadata. */
async function leftovers(bytes: Buffer, format: string) {
  const meta = await sharp(bytes).metadata();
  return {
    gps: await exifr.gps(bytes).catch(() => undefined),
    xmp: meta.xmp?.length ?? 0,
    iptc: meta.iptc?.length ?? 0,
    comments: meta.comments?.length ?? 0,
    c2pa: findC2paStore(bytes) !== null,
    fields: (await readMetadataFields(bytes, format)).filter((f) => f.name !== 'ifd0.Orientation').map((f) => f.name),
  };
}
const NOTHING = { gps: undefined, xmp: 0, iptc: 0, comments: 0, c2pa: false, fields: [] };

function jpegSegment(marker: number, payload: Buffer): Buffer {
  const head = Buffer.from([0xff, marker, 0, 0]);
  head.writeUInt16BE(payload.length + 2, 2);
  return Buffer.concat([head, payload]);
}

/** The first segment after SOI of a JPEG the helpers made (the one they inserted). */
function firstSegment(jpeg: Buffer): Buffer {
  return jpeg.subarray(2, 4 + jpeg.readUInt16BE(4));
}

function pngChunk(type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  return Buffer.concat([length, Buffer.from(type, 'latin1'), data, Buffer.alloc(4)]); // CRC unchecked by the stripper; libvips ignores ancillary CRC errors
}

function pngChunkTypes(png: Buffer): string[] {
  const types: string[] = [];
  for (let at = 8; at + 8 <= png.length; at += 12 + png.readUInt32BE(at)) types.push(png.toString('latin1', at + 4, at + 8));
  return types;
}

describe('detection image: metadata stripped, image data kept', () => {
  it('a JPEG with EXIF (GPS), XMP, IPTC, a comment, C2PA and another JPEG appended keeps only its image, orientation and ICC profile', async () => {
    const base = await noisy().withExif({ IFD0: { Make: 'TestCam', Artist: 'Jane Doe' }, IFD3: GPS }).withMetadata({ orientation: 6 }).withXmp(XMP).jpeg().toBuffer();
    const iptc = firstSegment(await iptcJpeg({ 115: 'Agency', 90: 'Paris' }));
    const c2pa = firstSegment(await c2paJpeg());
    const appended = await sharp({ create: { width: 8, height: 8, channels: 3, background: '#000' } }).withExif({ IFD3: GPS }).jpeg().toBuffer();
    const original = Buffer.concat([base.subarray(0, 2), iptc, c2pa, jpegSegment(0xfe, Buffer.from('shot at 12 Rue de Rivoli')), base.subarray(2), appended]);
    const before = await leftovers(original, 'jpeg');
    assert.ok(before.gps?.latitude && before.xmp > 0 && before.iptc > 0 && before.c2pa, JSON.stringify(before));

    const stripped = stripJpeg(original, 6);
    assert.deepEqual(await leftovers(stripped, 'jpeg'), NOTHING);
    const meta = await sharp(stripped).metadata();
    assert.deepEqual([meta.format, meta.width, meta.height, meta.orientation, meta.icc?.length], ['jpeg', 48, 32, 6, (await sharp(base).metadata()).icc?.length]);
    assert.ok(!stripped.includes('Rivoli') && !stripped.includes('TestCam') && !stripped.includes('Paris'));
    // The scan (entropy-coded data to EOI) is the original's, byte for byte; so are the pixels.
    const scan = (b: Buffer) => b.subarray(b.indexOf(Buffer.from([0xff, 0xda])), b.indexOf(Buffer.from([0xff, 0xd9])) + 2);
    assert.ok(scan(stripped).equals(scan(base)));
    assert.ok(stripped.subarray(-2).equals(Buffer.from([0xff, 0xd9])), 'nothing after the end of the image');
    assert.ok((await pixels(stripped)).equals(await pixels(base)));
    assert.deepEqual(await metadataFreeOriginal(original, 'jpeg'), stripped);
  });

  it('a PNG with text, iTXt XMP, eXIf (GPS), caBX, a private chunk and trailing bytes keeps only its pixel chunks', async () => {
    const base = await noisy().withExif({ IFD3: GPS }).png().toBuffer();
    const c2pa = await c2paPng();
    const extra = Buffer.concat([
      pngChunk('tEXt', Buffer.from('Comment\0shot at 12 Rue de Rivoli', 'latin1')),
      pngChunk('iTXt', Buffer.concat([Buffer.from('XML:com.adobe.xmp\0\0\0\0\0', 'latin1'), Buffer.from(XMP)])),
      pngChunk('prVt', Buffer.from('private')),
    ]);
    const caBX = c2pa.indexOf('caBX') - 4;
    const c2paChunk = c2pa.subarray(caBX, caBX + 12 + c2pa.readUInt32BE(caBX));
    const withC2pa = Buffer.concat([base.subarray(0, 33), extra, c2paChunk, base.subarray(33), Buffer.from('trailing')]);
    const before = await leftovers(withC2pa, 'png');
    assert.ok(before.c2pa && before.xmp > 0 && before.comments > 0 && pngChunkTypes(withC2pa).includes('eXIf'), JSON.stringify(before));

    const stripped = stripPng(withC2pa);
    assert.deepEqual(await leftovers(stripped, 'png'), NOTHING);
    assert.deepEqual(pngChunkTypes(stripped).filter((t) => t !== 'IDAT'), ['IHDR', 'pHYs', 'IEND']); // pixel density kept
    assert.ok((await pixels(stripped)).equals(await pixels(base)));
    assert.ok(!stripped.includes('Rivoli') && !stripped.includes('trailing'));
    assert.deepEqual(await metadataFreeOriginal(withC2pa, 'png'), stripped);
  });

  it('a WebP with EXIF (GPS) and XMP loses both chunks and their VP8X flags, and keeps its image chunk', async () => {
    const original = await noisy().withExif({ IFD0: { Make: 'TestCam' }, IFD3: GPS }).withXmp(XMP).webp({ quality: 90 }).toBuffer();
    const before = await leftovers(original, 'webp');
    assert.ok(before.fields.includes('gps.GPSLatitude') && before.xmp > 0, JSON.stringify(before));
    const stripped = stripWebp(original);
    assert.deepEqual(await leftovers(stripped, 'webp'), NOTHING);
    assert.equal(stripped.readUInt32LE(4), stripped.length - 8, 'RIFF size');
    assert.equal(stripped[20]! & 0x0c, 0, 'VP8X flags: no EXIF, no XMP');
    assert.ok(!stripped.includes('TestCam') && !stripped.includes('Paris'));
    assert.ok((await pixels(stripped)).equals(await pixels(original)));
    assert.deepEqual(await metadataFreeOriginal(original, 'webp'), stripped);
  });

  it('returns the very same bytes when there is nothing to remove', async () => {
    for (const format of ['png', 'jpeg', 'webp'] as const) {
      const bytes = format === 'png' ? await noisePng(40, 30) : await flatImage(format);
      assert.equal(stripMetadata(bytes, format), bytes, format);
      assert.equal(await metadataFreeOriginal(bytes, format), bytes, format);
    }
  });

  it('refuses a container it cannot walk; the preview is sent instead', async () => {
    const png = await truncatedPng();
    assert.throws(() => stripPng(png), MalformedImageError);
    assert.throws(() => stripJpeg(Buffer.from('not a jpeg')), MalformedImageError);
    const webp = await flatImage('webp');
    assert.throws(() => stripWebp(webp.subarray(0, 30)), MalformedImageError);
    assert.equal(await metadataFreeOriginal(png, 'png'), null);
    const preview = Buffer.from('the preview');
    assert.deepEqual(await detectionImage(png, 'png', 1 << 20, async () => preview), { bytes: preview, contentType: 'image/jpeg' });
  });

  it('sends the preview for PSD and TIFF, for an original above the limit, and for a PNG whose orientation lives in its EXIF', async () => {
    const preview = Buffer.from('the preview');
    const render = async () => preview;
    const tiff = await flatImage('tiff');
    assert.deepEqual(await detectionImage(tiff, 'tiff', 1 << 20, render), { bytes: preview, contentType: 'image/jpeg' });
    const big = await noisePng(40, 30);
    assert.deepEqual(await detectionImage(big, 'png', big.length - 1, render), { bytes: preview, contentType: 'image/jpeg' });
    const rotated = await noisy().withMetadata({ orientation: 6 }).png().toBuffer();
    assert.equal((await sharp(rotated).metadata()).orientation, 6);
    assert.deepEqual(await detectionImage(rotated, 'png', 1 << 20, render), { bytes: preview, contentType: 'image/jpeg' });
    const jpeg = await flatImage('jpeg');
    assert.deepEqual(await detectionImage(jpeg, 'jpeg', 1 << 20, render), { bytes: jpeg, contentType: 'image/jpeg' });
  });
});
