/**
 * What the detection service is sent of an original PNG, JPEG or WebP: the same compressed image data,
 * byte for byte, without the metadata around it (docs/detection-service.md, "What is sent").
 *
 * Lossless on purpose: re-encoding would change the compression traces a detector looks at (a JPEG saved
 * twice looks different from one saved once), so the container is rewritten and the image data copied.
 * Kept is what decoding and colour need: JPEG tables, frame and scan headers, JFIF, the ICC profile, the
 * Adobe colour-transform segment; PNG critical chunks and the colour, transparency, density and animation
 * chunks; WebP image, alpha, animation and ICC chunks. Everything else goes: EXIF (GPS above all), XMP,
 * IPTC/Photoshop resources, C2PA stores, comments, text chunks, MPF and trailing data after the image
 * (where phones append more images, each with its own EXIF), and any private or unknown segment or chunk.
 *
 * A JPEG's EXIF orientation is the one EXIF fact a detector needs (which way is up); it is written back as
 * a minimal EXIF block holding only that tag. Structure errors throw MalformedImageError: the caller then
 * sends the rendered preview instead.
 */

export class MalformedImageError extends Error {
  override name = 'MalformedImageError';
}

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/** PNG chunks that describe the pixels (PNG 3rd edition, APNG): kept; every other chunk is dropped. */
const PNG_KEPT_CHUNKS: ReadonlySet<string> = new Set([
  'IHDR', 'PLTE', 'IDAT', 'IEND', 'tRNS', 'cHRM', 'gAMA', 'iCCP', 'sBIT', 'sRGB', 'cICP', 'mDCV', 'cLLI', 'bKGD', 'pHYs', 'acTL', 'fcTL', 'fdAT',
]);

/** WebP chunks that describe the pixels: kept; EXIF, XMP and unknown chunks are dropped. */
const WEBP_KEPT_CHUNKS: ReadonlySet<string> = new Set(['VP8 ', 'VP8L', 'VP8X', 'ALPH', 'ANIM', 'ANMF', 'ICCP']);
/** VP8X flag bits (first payload byte) announcing EXIF and XMP chunks. */
const VP8X_EXIF = 0x08;
const VP8X_XMP = 0x04;

/** The JPEG's pixels and tables, without metadata. `orientation` (2–8) is written back as a minimal EXIF block. */
export function stripJpeg(bytes: Buffer, orientation = 1): Buffer {
  if (bytes.length < 4 || bytes[0] !== 0xff || bytes[1] !== 0xd8) throw new MalformedImageError('not a JPEG (no SOI marker)');
  const kept: Buffer[] = [bytes.subarray(0, 2)];
  let removed = false;
  let at = 2;
  let orientationWritten = orientation < 2 || orientation > 8;
  for (;;) {
    if (at + 2 > bytes.length) throw new MalformedImageError('JPEG ends before its image data');
    if (bytes[at] !== 0xff) throw new MalformedImageError(`JPEG segment expected at byte ${at}`);
    const marker = bytes[at + 1]!;
    if (marker === 0xff) { at += 1; removed = true; continue; } // fill byte
    if (marker === 0x01 || (marker >= 0xd0 && marker <= 0xd7)) { kept.push(bytes.subarray(at, at + 2)); at += 2; continue; }
    if (marker === 0xd9) throw new MalformedImageError('JPEG ends before its first scan');
    if (at + 4 > bytes.length) throw new MalformedImageError('JPEG segment header cut short');
    const end = at + 2 + bytes.readUInt16BE(at + 2);
    if (end > bytes.length || end < at + 4) throw new MalformedImageError(`JPEG segment at byte ${at} runs past the end of the file`);
    if (!orientationWritten && !(marker === 0xe0 && isJfif(bytes, at))) {
      // Right after SOI and JFIF, where EXIF belongs.
      kept.push(orientationSegment(orientation));
      orientationWritten = true;
    }
    if (marker === 0xda) {
      // Start of scan: the image data and any further tables and scans, up to and including EOI.
      const eoi = endOfImage(bytes, end);
      kept.push(bytes.subarray(at, eoi));
      if (eoi < bytes.length) removed = true;
      break;
    }
    if (keepJpegSegment(bytes, at, marker)) kept.push(bytes.subarray(at, end));
    else removed = true;
    at = end;
  }
  if (!removed && orientation < 2) return bytes;
  return Buffer.concat(kept);
}

function isJfif(bytes: Buffer, at: number): boolean {
  return bytes.toString('latin1', at + 4, at + 9) === 'JFIF\0';
}

function keepJpegSegment(bytes: Buffer, at: number, marker: number): boolean {
  if (marker === 0xe0) return isJfif(bytes, at); // JFIF (JFXX thumbnails and others dropped)
  if (marker === 0xe2) return bytes.toString('latin1', at + 4, at + 16) === 'ICC_PROFILE\0'; // not MPF, FlashPix
  if (marker === 0xee) return bytes.toString('latin1', at + 4, at + 9) === 'Adobe'; // colour transform, needed to decode
  if (marker >= 0xe0 && marker <= 0xef) return false; // APP1 EXIF/XMP, APP11 C2PA, APP13 IPTC, vendors
  if (marker === 0xfe) return false; // comment
  return true; // tables, frame headers, restart interval...
}

/** Offset just past the EOI marker that ends the image (the first FFD9 after a scan starts: entropy-coded data never holds one). */
function endOfImage(bytes: Buffer, from: number): number {
  for (let at = bytes.indexOf(0xff, from); at >= 0 && at + 1 < bytes.length; at = bytes.indexOf(0xff, at + 1)) {
    if (bytes[at + 1] === 0xd9) return at + 2;
  }
  throw new MalformedImageError('JPEG has no end-of-image marker');
}

/** APP1 "Exif" with a big-endian TIFF header and one IFD0 entry: Orientation (0x0112, SHORT). */
function orientationSegment(orientation: number): Buffer {
  const tiff = Buffer.alloc(8 + 2 + 12 + 4);
  tiff.write('MM', 0, 'latin1');
  tiff.writeUInt16BE(42, 2);
  tiff.writeUInt32BE(8, 4);
  tiff.writeUInt16BE(1, 8);
  tiff.writeUInt16BE(0x0112, 10);
  tiff.writeUInt16BE(3, 12);
  tiff.writeUInt32BE(1, 14);
  tiff.writeUInt16BE(orientation, 18);
  tiff.writeUInt32BE(0, 22);
  const payload = Buffer.concat([Buffer.from('Exif\0\0', 'latin1'), tiff]);
  const head = Buffer.from([0xff, 0xe1, 0, 0]);
  head.writeUInt16BE(payload.length + 2, 2);
  return Buffer.concat([head, payload]);
}

/** The PNG with only the chunks that describe its pixels, up to IEND. */
export function stripPng(bytes: Buffer): Buffer {
  if (bytes.length < 8 || !bytes.subarray(0, 8).equals(PNG_SIGNATURE)) throw new MalformedImageError('not a PNG (bad signature)');
  const kept: Buffer[] = [bytes.subarray(0, 8)];
  let removed = false;
  let at = 8;
  for (;;) {
    if (at + 12 > bytes.length) throw new MalformedImageError('PNG ends without an IEND chunk');
    const end = at + 12 + bytes.readUInt32BE(at);
    if (end > bytes.length) throw new MalformedImageError(`PNG chunk at byte ${at} runs past the end of the file`);
    const type = bytes.toString('latin1', at + 4, at + 8);
    if (PNG_KEPT_CHUNKS.has(type)) kept.push(bytes.subarray(at, end));
    else removed = true;
    at = end;
    if (type === 'IEND') break;
  }
  if (at < bytes.length) removed = true;
  return removed ? Buffer.concat(kept) : bytes;
}

/** The WebP with only its image, alpha, animation and ICC chunks; VP8X's EXIF and XMP flags cleared. */
export function stripWebp(bytes: Buffer): Buffer {
  if (bytes.length < 20 || bytes.toString('latin1', 0, 4) !== 'RIFF' || bytes.toString('latin1', 8, 12) !== 'WEBP') throw new MalformedImageError('not a WebP (bad RIFF header)');
  const riffEnd = 8 + bytes.readUInt32LE(4);
  if (riffEnd > bytes.length) throw new MalformedImageError('WebP RIFF size runs past the end of the file');
  const kept: Buffer[] = [];
  let removed = riffEnd < bytes.length;
  let at = 12;
  while (at < riffEnd) {
    if (at + 8 > riffEnd) throw new MalformedImageError('WebP chunk header cut short');
    const size = bytes.readUInt32LE(at + 4);
    const end = at + 8 + size + (size % 2);
    if (end > riffEnd) throw new MalformedImageError(`WebP chunk at byte ${at} runs past the end of the file`);
    const type = bytes.toString('latin1', at, at + 4);
    if (!WEBP_KEPT_CHUNKS.has(type)) removed = true;
    else if (type === 'VP8X' && size >= 1 && (bytes[at + 8]! & (VP8X_EXIF | VP8X_XMP)) !== 0) {
      const chunk = Buffer.from(bytes.subarray(at, end));
      chunk[8] = chunk[8]! & ~(VP8X_EXIF | VP8X_XMP);
      kept.push(chunk);
      removed = true;
    } else kept.push(bytes.subarray(at, end));
    at = end;
  }
  if (!removed) return bytes;
  const body = Buffer.concat(kept);
  const head = Buffer.alloc(12);
  head.write('RIFF', 0, 'latin1');
  head.writeUInt32LE(4 + body.length, 4);
  head.write('WEBP', 8, 'latin1');
  return Buffer.concat([head, body]);
}

/**
 * The image without its metadata (the same Buffer when there was none to remove).
 * @param orientation the JPEG's EXIF orientation (1–8), kept as the one EXIF tag sent
 * @throws MalformedImageError when the container cannot be walked
 */
export function stripMetadata(bytes: Buffer, format: 'png' | 'jpeg' | 'webp', orientation = 1): Buffer {
  if (format === 'jpeg') return stripJpeg(bytes, orientation);
  if (format === 'png') return stripPng(bytes);
  return stripWebp(bytes);
}
