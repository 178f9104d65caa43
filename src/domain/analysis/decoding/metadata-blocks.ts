/**
 * The sizes of a file's metadata blocks, from its container structure alone (chunk and segment lengths),
 * before any library reads a block: libvips would otherwise load a 16 MiB XMP chunk (and sharp copy it
 * twice) just for the header check to refuse it. Only lengths are read; nothing is decompressed.
 *
 * - PNG: text chunks (`tEXt`, `zTXt`, `iTXt`, XMP included) together, `eXIf`.
 * - JPEG: APP1 (EXIF, XMP, extended XMP) and APP13 (IPTC) segments, each kind together.
 * - WebP: `EXIF` and `XMP ` chunks.
 * - TIFF: the XMP (700), IPTC (33723) and Photoshop (34377) tags of the first IFD.
 * A structure that does not parse reports what was found so far: the decoders judge the rest.
 */
export interface MetadataBlockSizes {
  exif: number;
  xmp: number;
  iptc: number;
  /** PNG text chunks together. */
  text: number;
}

/**
 * Chunks, segments or tags walked at most: a file of millions of empty chunks must not make the walk
 * itself the cost. What lies beyond is judged by libvips in the decoder thread (sharp's `metadata()`).
 */
const MAX_STEPS = 100_000;

function png(b: Buffer, out: MetadataBlockSizes): void {
  for (let o = 8, step = 0; o + 8 <= b.length && step < MAX_STEPS; step++) {
    const length = b.readUInt32BE(o);
    const type = b.toString('latin1', o + 4, o + 8);
    if (type === 'tEXt' || type === 'zTXt' || type === 'iTXt') {
      if (b.toString('latin1', o + 8, o + 8 + 17) === 'XML:com.adobe.xmp') out.xmp += length;
      else out.text += length;
    } else if (type === 'eXIf') out.exif += length;
    else if (type === 'IEND') return;
    o += 12 + length;
  }
}

function jpeg(b: Buffer, out: MetadataBlockSizes): void {
  for (let o = 2, step = 0; o + 4 <= b.length && b[o] === 0xff && step < MAX_STEPS; step++) {
    const marker = b[o + 1]!;
    if (marker === 0xda || marker === 0xd9) return; // start of scan: no metadata after it that libvips reads
    const length = b.readUInt16BE(o + 2);
    if (marker === 0xe1) {
      if (b.toString('latin1', o + 4, o + 10) === 'Exif\0\0') out.exif += length;
      else out.xmp += length;
    } else if (marker === 0xed) out.iptc += length;
    o += 2 + length;
  }
}

function webp(b: Buffer, out: MetadataBlockSizes): void {
  for (let o = 12, step = 0; o + 8 <= b.length && step < MAX_STEPS; step++) {
    const type = b.toString('latin1', o, o + 4);
    const length = b.readUInt32LE(o + 4);
    if (type === 'EXIF') out.exif += length;
    else if (type === 'XMP ') out.xmp += length;
    o += 8 + length + (length & 1);
  }
}

const TIFF_TYPE_BYTES: Record<number, number> = { 1: 1, 2: 1, 3: 2, 4: 4, 5: 8, 6: 1, 7: 1, 8: 2, 9: 4, 10: 8, 11: 4, 12: 8, 16: 8 };

function tiff(b: Buffer, out: MetadataBlockSizes): void {
  if (b.length < 8) return;
  const le = b.toString('latin1', 0, 2) === 'II';
  const u16 = (o: number) => (le ? b.readUInt16LE(o) : b.readUInt16BE(o));
  const u32 = (o: number) => (le ? b.readUInt32LE(o) : b.readUInt32BE(o));
  if (u16(2) !== 42) return; // BigTIFF (43): left to libvips
  const ifd = u32(4);
  if (ifd + 2 > b.length) return;
  const entries = u16(ifd);
  for (let n = 0; n < Math.min(entries, MAX_STEPS) && ifd + 2 + n * 12 + 12 <= b.length; n++) {
    const e = ifd + 2 + n * 12;
    const bytes = u32(e + 4) * (TIFF_TYPE_BYTES[u16(e + 2)] ?? 1);
    const tag = u16(e);
    if (tag === 700) out.xmp += bytes;
    else if (tag === 33723 || tag === 34377) out.iptc += bytes;
  }
}

/** Declared sizes of the metadata blocks of a `png`, `jpeg`, `webp` or `tiff` file (zeros for others). */
export function metadataBlockSizes(bytes: Buffer, format: string): MetadataBlockSizes {
  const out: MetadataBlockSizes = { exif: 0, xmp: 0, iptc: 0, text: 0 };
  try {
    if (format === 'png') png(bytes, out);
    else if (format === 'jpeg') jpeg(bytes, out);
    else if (format === 'webp') webp(bytes, out);
    else if (format === 'tiff') tiff(bytes, out);
  } catch {
    // A length pointing past the end: what was found so far stands; libvips judges the file.
  }
  return out;
}
