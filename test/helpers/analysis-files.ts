/**
 * Real files for the analysis checks, made on the spot with sharp and ag-psd (nothing downloaded):
 * plain PNG/JPEG, a layered PSD, files that declare a generator (XMP digital source type, EXIF Software,
 * Stable Diffusion PNG text, a C2PA store), and truncated images.
 */
import { crc32 } from 'node:zlib';
import sharp from 'sharp';
import { writePsdBuffer, type Psd } from 'ag-psd';
import { DIGITAL_SOURCE_TYPE_VOCABULARY } from '../../src/domain/analysis/metadata/generator-declarations.js';

/** A noisy RGB PNG (noise does not compress: 600×600 is about 1 MB). */
export function noisePng(width = 64, height = 48): Promise<Buffer> {
  return sharp({ create: { width, height, channels: 3, background: '#000', noise: { type: 'gaussian', mean: 128, sigma: 60 } } }).png().toBuffer();
}

export function flatImage(format: 'png' | 'jpeg' | 'webp' | 'tiff', width = 40, height = 30, colour = '#3366aa'): Promise<Buffer> {
  return sharp({ create: { width, height, channels: 3, background: colour } }).toFormat(format).toBuffer();
}

function rgba(width: number, height: number, [r, g, b, a]: [number, number, number, number]) {
  const data = new Uint8ClampedArray(width * height * 4);
  for (let i = 0; i < width * height; i++) data.set([r, g, b, a], i * 4);
  return { width, height, data, colorSpace: 'srgb' } as unknown as ImageData;
}

/** A 48×32 PSD with a background, a group holding "Sketch", and a half-transparent "Ink" layer. */
export function layeredPsd(options: { xmp?: string } = {}): Buffer {
  const psd: Psd = {
    width: 48,
    height: 32,
    imageData: rgba(48, 32, [220, 210, 200, 255]),
    children: [
      { name: 'Background', left: 0, top: 0, imageData: rgba(48, 32, [255, 255, 255, 255]) },
      { name: 'Drawing', children: [{ name: 'Sketch', left: 4, top: 4, imageData: rgba(20, 10, [200, 0, 0, 255]) }] },
      { name: 'Ink', left: 10, top: 12, imageData: rgba(16, 12, [0, 0, 255, 128]) },
    ],
    ...(options.xmp ? { imageResources: { xmpMetadata: options.xmp } } : {}),
  };
  return Buffer.from(writePsdBuffer(psd, { generateThumbnail: false }));
}

/** An XMP packet declaring an IPTC digital source type (and optionally the creator tool). */
export function xmpPacket(sourceType: string, creatorTool?: string): string {
  return `<?xpacket begin="\uFEFF" id="W5M0MpCehiHzreSzNTczkc9d"?><x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">` +
    `<rdf:Description rdf:about="" xmlns:Iptc4xmpExt="http://iptc.org/std/Iptc4xmpExt/2008-02-29/" xmlns:xmp="http://ns.adobe.com/xap/1.0/"` +
    ` Iptc4xmpExt:DigitalSourceType="${DIGITAL_SOURCE_TYPE_VOCABULARY}${sourceType}"${creatorTool ? ` xmp:CreatorTool="${creatorTool}"` : ''}/>` +
    `</rdf:RDF></x:xmpmeta><?xpacket end="w"?>`;
}

/** A JPEG or PNG whose XMP declares `sourceType` (e.g. trainedAlgorithmicMedia, digitalCapture). */
export function xmpDeclaredImage(format: 'jpeg' | 'png' | 'webp', sourceType: string, creatorTool?: string): Promise<Buffer> {
  return sharp({ create: { width: 24, height: 16, channels: 3, background: '#808080' } }).withXmp(xmpPacket(sourceType, creatorTool)).toFormat(format).toBuffer();
}

/** A JPEG whose EXIF IFD0 Software tag names `software` (EXIF ASCII: libvips drops non-ASCII and `(…)`). */
export function softwareTaggedJpeg(software: string): Promise<Buffer> {
  return sharp({ create: { width: 24, height: 16, channels: 3, background: '#808080' } }).withExif({ IFD0: { Software: software } }).jpeg().toBuffer();
}

function pngChunk(type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([length, body, crc]);
}

/** Inserts a chunk right after IHDR (8-byte signature + 25-byte IHDR chunk). */
function withPngChunk(png: Buffer, type: string, data: Buffer): Buffer {
  return Buffer.concat([png.subarray(0, 33), pngChunk(type, data), png.subarray(33)]);
}

/** A PNG with the `parameters` text chunk AUTOMATIC1111's Stable Diffusion web UI writes. */
export async function stableDiffusionPng(): Promise<Buffer> {
  const text = 'a lighthouse at dusk\nSteps: 30, Sampler: DPM++ 2M Karras, CFG scale: 7, Seed: 1234, Size: 512x512';
  return withPngChunk(await flatImage('png', 24, 16), 'tEXt', Buffer.from(`parameters\0${text}`, 'latin1'));
}

function box(type: string, payload: Buffer): Buffer {
  const header = Buffer.alloc(8);
  header.writeUInt32BE(8 + payload.length);
  header.write(type, 4, 'latin1');
  return Buffer.concat([header, payload]);
}

/**
 * A C2PA manifest store as JUMBF boxes (a `jumb` superbox labelled `c2pa`, holding the actions assertion
 * as CBOR text with the digital source type). Unsigned: enough for certdesk's cheap detection, which
 * reads the declaration and does not verify signatures.
 */
function c2paStore(sourceType: string): Buffer {
  const description = Buffer.concat([Buffer.from('6332706100110010800000aa00389b71', 'hex'), Buffer.from([0x03]), Buffer.from('c2pa\0', 'latin1')]);
  const cbor = Buffer.from(`\xa1gactions\x81\xa2faction\x6bc2pa.createdqdigitalSourceType${DIGITAL_SOURCE_TYPE_VOCABULARY}${sourceType}`, 'latin1');
  return box('jumb', Buffer.concat([box('jumd', description), box('cbor', cbor)]));
}

/** A JPEG carrying a C2PA store in an APP11 segment (JPEG XT box header: "JP", instance, sequence). */
export async function c2paJpeg(sourceType = 'trainedAlgorithmicMedia'): Promise<Buffer> {
  const jpeg = await flatImage('jpeg', 24, 16);
  const payload = Buffer.concat([Buffer.from('JP', 'latin1'), Buffer.from([0x00, 0x01, 0x00, 0x00, 0x00, 0x01]), c2paStore(sourceType)]);
  const header = Buffer.from([0xff, 0xeb, 0, 0]);
  header.writeUInt16BE(payload.length + 2, 2);
  return Buffer.concat([jpeg.subarray(0, 2), header, payload, jpeg.subarray(2)]);
}

/** A PNG carrying a C2PA store in its `caBX` chunk. */
export async function c2paPng(sourceType = 'trainedAlgorithmicMedia'): Promise<Buffer> {
  return withPngChunk(await flatImage('png', 24, 16), 'caBX', c2paStore(sourceType));
}

/** A PNG cut in the middle of its image data: the right magic number, not a decodable image. */
export async function truncatedPng(): Promise<Buffer> {
  const full = await noisePng(64, 64);
  return full.subarray(0, Math.floor(full.length / 2));
}

/** A PSD cut short: the header reads, the layer section does not. */
export function truncatedPsd(): Buffer {
  const full = layeredPsd();
  return full.subarray(0, full.length - 400);
}
