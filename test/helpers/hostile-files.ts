/**
 * Hostile files for the analysis, made on the spot (nothing committed, nothing downloaded): decompression
 * and allocation bombs whose headers declare far more pixels than they carry, a PSD with thousands of
 * layers, a 16 MiB XMP block, truncated files, and polyglots. Each is a few bytes to a few MB.
 */
import { crc32, deflateSync } from 'node:zlib';
import sharp from 'sharp';
import { writePsdBuffer, type Psd } from 'ag-psd';
import { flatImage, layeredPsd, noisePng, xmpPacket } from './analysis-files.js';

function pngChunk(type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([length, body, crc]);
}

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/**
 * A 48-byte PSD declaring `width`×`height` RGB pixels and no data: ag-psd would allocate
 * width × height × 4 bytes for its composite before finding the file empty (22000² is 1.9 GB).
 */
export function psdBomb(width = 22_000, height = 22_000): Buffer {
  const b = Buffer.alloc(48);
  b.write('8BPS', 0, 'latin1');
  b.writeUInt16BE(1, 4); // version: PSD
  b.writeUInt16BE(3, 12); // channels
  b.writeUInt32BE(height, 14);
  b.writeUInt32BE(width, 18);
  b.writeUInt16BE(8, 22); // bits per channel
  b.writeUInt16BE(3, 24); // RGB
  // colour mode data, image resources, layer and mask info: all empty; then RLE-compressed image data
  b.writeUInt16BE(1, 38);
  return b;
}

/** A PNG declaring `size`×`size` grey pixels whose IDAT is a few kB of compressed zero rows. */
export function pngBomb(size = 50_000): Buffer {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(size, 0);
  ihdr.writeUInt32BE(size, 4);
  ihdr[8] = 8; // bit depth
  ihdr[9] = 0; // greyscale
  const rows = deflateSync(Buffer.alloc((size + 1) * 64), { level: 9 });
  return Buffer.concat([PNG_SIGNATURE, pngChunk('IHDR', ihdr), pngChunk('IDAT', rows), pngChunk('IEND', Buffer.alloc(0))]);
}

/** A small JPEG whose frame header (SOF0) is patched to declare `size`×`size` pixels. */
export async function jpegBomb(size = 65_000): Promise<Buffer> {
  const jpeg = Buffer.from(await flatImage('jpeg', 16, 16));
  for (let i = 2; i < jpeg.length - 9; i++) {
    if (jpeg[i] === 0xff && (jpeg[i + 1] === 0xc0 || jpeg[i + 1] === 0xc2)) {
      jpeg.writeUInt16BE(size, i + 5); // height
      jpeg.writeUInt16BE(size, i + 7); // width
      return jpeg;
    }
  }
  throw new Error('no SOF marker in the generated JPEG');
}

/** A small uncompressed TIFF whose ImageWidth and ImageLength tags are patched to `size`. */
export async function tiffBomb(size = 65_000): Promise<Buffer> {
  const tiff = Buffer.from(await sharp({ create: { width: 16, height: 16, channels: 3, background: '#808080' } }).tiff({ compression: 'none' }).toBuffer());
  const le = tiff.toString('latin1', 0, 2) === 'II';
  const u16 = (o: number) => (le ? tiff.readUInt16LE(o) : tiff.readUInt16BE(o));
  const u32 = (o: number) => (le ? tiff.readUInt32LE(o) : tiff.readUInt32BE(o));
  const ifd = u32(4);
  let patched = 0;
  for (let n = 0; n < u16(ifd); n++) {
    const entry = ifd + 2 + n * 12;
    const tag = u16(entry);
    if (tag !== 256 && tag !== 257) continue;
    const type = u16(entry + 2);
    if (type === 3) le ? tiff.writeUInt16LE(size, entry + 8) : tiff.writeUInt16BE(size, entry + 8);
    else le ? tiff.writeUInt32LE(size, entry + 8) : tiff.writeUInt32BE(size, entry + 8);
    patched++;
  }
  if (patched !== 2) throw new Error('ImageWidth/ImageLength not found in the generated TIFF');
  return tiff;
}

/** A PSD with `count` one-pixel layers (Photoshop allows 32,767): 3,000 is about 400 kB. */
export function manyLayerPsd(count = 3000): Buffer {
  const pixel = () => ({ width: 1, height: 1, data: new Uint8ClampedArray([10, 20, 30, 255]), colorSpace: 'srgb' }) as unknown as ImageData;
  const psd: Psd = {
    width: 8,
    height: 8,
    imageData: { width: 8, height: 8, data: new Uint8ClampedArray(8 * 8 * 4).fill(255), colorSpace: 'srgb' } as unknown as ImageData,
    children: Array.from({ length: count }, (_, i) => ({ name: `L${i}`, left: i % 8, top: (i >> 3) % 8, imageData: pixel() })),
  };
  return Buffer.from(writePsdBuffer(psd, { generateThumbnail: false }));
}

/** A small PNG carrying an XMP packet (iTXt `XML:com.adobe.xmp`) of about `bytes` bytes. */
export async function hugeXmpPng(bytes = 16 * 1024 * 1024): Promise<Buffer> {
  const packet = xmpPacket('digitalCapture');
  // Padding inside the packet, where XMP puts it; an XML parser still has to walk it.
  const padded = packet.replace('<?xpacket end', `${'<!-- padding -->'.padEnd(64, ' ').repeat(Math.ceil(bytes / 64))}<?xpacket end`);
  const itxt = Buffer.concat([Buffer.from('XML:com.adobe.xmp\0\0\0\0\0', 'latin1'), Buffer.from(padded, 'utf8')]);
  const png = await flatImage('png', 24, 16);
  return Buffer.concat([png.subarray(0, 33), pngChunk('iTXt', itxt), png.subarray(33)]);
}

/** A noise JPEG cut in half: the right magic number and header, not a decodable image. */
export async function truncatedJpeg(): Promise<Buffer> {
  const full = await sharp(await noisePng(64, 64)).jpeg().toBuffer();
  return full.subarray(0, Math.floor(full.length / 2));
}

/** A PSD cut right after its header: the canvas size reads, the sections do not. */
export function headerOnlyPsd(): Buffer {
  return layeredPsd().subarray(0, 30);
}

/** A valid PNG with a ZIP archive (one stored file) appended: a PNG to image readers, a ZIP to unzip. */
export async function pngZipPolyglot(): Promise<Buffer> {
  const png = await flatImage('png', 24, 16);
  const name = Buffer.from('payload.txt', 'latin1');
  const content = Buffer.from('not an image\n', 'latin1');
  const local = Buffer.alloc(30);
  local.writeUInt32LE(0x04034b50, 0);
  local.writeUInt16LE(10, 4);
  local.writeUInt32LE(crc32(content), 14);
  local.writeUInt32LE(content.length, 18);
  local.writeUInt32LE(content.length, 22);
  local.writeUInt16LE(name.length, 26);
  const central = Buffer.alloc(46);
  central.writeUInt32LE(0x02014b50, 0);
  central.writeUInt16LE(10, 4);
  central.writeUInt16LE(10, 6);
  central.writeUInt32LE(crc32(content), 16);
  central.writeUInt32LE(content.length, 20);
  central.writeUInt32LE(content.length, 24);
  central.writeUInt16LE(name.length, 28);
  central.writeUInt32LE(png.length, 42); // offset of the local header
  const localLength = local.length + name.length + content.length;
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(1, 8);
  end.writeUInt16LE(1, 10);
  end.writeUInt32LE(central.length + name.length, 12);
  end.writeUInt32LE(png.length + localLength, 16);
  return Buffer.concat([png, local, name, content, central, name, end]);
}

/** JPEG magic bytes followed by an HTML page: sniffs as a JPEG, is a script. */
export function jpegMagicHtml(): Buffer {
  return Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), Buffer.from('<html><script>alert(document.domain)</script></html>'.padEnd(4096, ' '), 'latin1')]);
}

/** A plausible PSD header (24×16 RGB) followed by a PNG: sniffs as a PSD, is not one. */
export async function psdMagicPng(): Promise<Buffer> {
  const header = psdBomb(24, 16).subarray(0, 26);
  return Buffer.concat([header, await flatImage('png', 24, 16)]);
}

/** A GIF whose comment carries a script: a format certdesk does not accept. */
export function gifWithScript(): Buffer {
  return Buffer.concat([Buffer.from('GIF89a\x01\x00\x01\x00\x00\x00\x00!\xfe', 'latin1'), Buffer.from('\x1f<script>alert(1)</script>\x00;', 'latin1')]);
}

// Hostile Content Credentials (C2PA manifest stores, JUMBF boxes) in files a certificate is issued for.

/** A JUMBF box: big-endian length, four-character type, payload. */
function jumbfBox(type: string, payload: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(8 + payload.length);
  head.write(type, 4, 'latin1');
  return Buffer.concat([head, payload]);
}

/** A JUMBF description box naming a superbox `label` of C2PA's manifest store type. */
function jumbfDescription(label: string): Buffer {
  const c2paType = Buffer.from('6332706100110010800000aa00389b71', 'hex');
  return jumbfBox('jumd', Buffer.concat([c2paType, Buffer.from([0x03]), Buffer.from(`${label}\0`, 'latin1')]));
}

/** `png` with `store` inserted as its `caBX` chunk (where C2PA keeps a PNG's manifest store), before IEND. */
export function pngWithStore(png: Buffer, store: Buffer): Buffer {
  const iend = png.length - 12;
  return Buffer.concat([png.subarray(0, iend), pngChunk('caBX', store), png.subarray(iend)]);
}

/** A manifest store that is no JUMBF at all: a `jumb` box whose lengths point past its end, then noise. */
export function malformedStore(): Buffer {
  const box = jumbfBox('jumb', Buffer.concat([jumbfDescription('c2pa'), Buffer.from('ffffffff6a756d62', 'hex'), Buffer.alloc(64, 0xa5)]));
  return box;
}

/** `depth` C2PA superboxes each inside the next (a parser that recurses per level runs out of stack). */
export function deeplyNestedStore(depth = 50_000): Buffer {
  const description = jumbfDescription('c2pa');
  // Built from the inside out in one buffer: each level is an 8-byte header and the description.
  const level = 8 + description.length;
  const out = Buffer.alloc(depth * level + 8);
  let end = out.length;
  out.writeUInt32BE(8, end - 8);
  out.write('jumb', end - 4, 'latin1');
  end -= 8;
  for (let i = 0; i < depth; i++) {
    const start = end - level;
    out.writeUInt32BE(out.length - start, start);
    out.write('jumb', start + 4, 'latin1');
    description.copy(out, start + 8);
    end = start;
  }
  return out;
}

/** A store larger than ANALYSIS_MAX_METADATA_BYTES (4 MiB by default): refused from its length, never read. */
export function oversizedStore(bytes = 5 * 1024 * 1024): Buffer {
  return jumbfBox('jumb', Buffer.concat([jumbfDescription('c2pa'), Buffer.alloc(bytes)]));
}

/** `jpeg` with `count` APP11 (JPEG XT / JUMBF) segments of noise claiming to be one C2PA store in pieces. */
export function jpegWithNoiseApp11(jpeg: Buffer, count = 40): Buffer {
  const segments: Buffer[] = [];
  for (let i = 0; i < count; i++) {
    const body = Buffer.alloc(2000, (i * 37) & 0xff);
    body.write('JP', 0, 'latin1');
    body.writeUInt16BE(0x0001, 2); // box instance
    body.writeUInt32BE(i + 1, 4); // packet sequence
    body.writeUInt32BE(0x7fffffff, 8); // a superbox length far past the segments
    body.write('jumb', 12, 'latin1');
    const head = Buffer.from([0xff, 0xeb, 0, 0]);
    head.writeUInt16BE(body.length + 2, 2);
    segments.push(head, body);
  }
  return Buffer.concat([jpeg.subarray(0, 2), ...segments, jpeg.subarray(2)]);
}
