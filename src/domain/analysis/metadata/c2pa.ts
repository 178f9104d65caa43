/**
 * A cheap look at C2PA content credentials: find the embedded manifest store (JUMBF) where each format
 * keeps it (JPEG APP11 segments, the PNG `caBX` chunk, the WebP `C2PA` chunk) and look in it for an AI
 * digital source type, which C2PA actions (`c2pa.created` …) carry as the IPTC URL in plain text inside
 * CBOR. The manifest's signature is NOT verified: a claim of AI generation is taken at its word (it can only
 * make an order stricter), while the absence of a claim proves nothing. TIFF and PSD stores are not read.
 */
import { AI_DIGITAL_SOURCE_TYPES, DIGITAL_SOURCE_TYPE_VOCABULARY } from './generator-declarations.js';

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

function jpegApp11(bytes: Buffer): Buffer[] {
  const parts: Buffer[] = [];
  let at = 2;
  while (at + 4 <= bytes.length && bytes[at] === 0xff) {
    const marker = bytes[at + 1]!;
    if (marker === 0xd9 || marker === 0xda) break; // end of image / start of scan: no more metadata
    if (marker === 0x01 || (marker >= 0xd0 && marker <= 0xd7)) { at += 2; continue; }
    const length = bytes.readUInt16BE(at + 2);
    if (marker === 0xeb && bytes.toString('latin1', at + 4, at + 6) === 'JP') parts.push(bytes.subarray(at + 4, Math.min(bytes.length, at + 2 + length)));
    at += 2 + length;
  }
  return parts;
}

function pngChunks(bytes: Buffer, type: string): Buffer[] {
  const parts: Buffer[] = [];
  let at = 8;
  while (at + 12 <= bytes.length) {
    const length = bytes.readUInt32BE(at);
    const name = bytes.toString('latin1', at + 4, at + 8);
    if (name === type) parts.push(bytes.subarray(at + 8, Math.min(bytes.length, at + 8 + length)));
    if (name === 'IEND') break;
    at += 12 + length;
  }
  return parts;
}

function riffChunks(bytes: Buffer, type: string): Buffer[] {
  const parts: Buffer[] = [];
  let at = 12;
  while (at + 8 <= bytes.length) {
    const length = bytes.readUInt32LE(at + 4);
    if (bytes.toString('latin1', at, at + 4) === type) parts.push(bytes.subarray(at + 8, Math.min(bytes.length, at + 8 + length)));
    at += 8 + length + (length % 2);
  }
  return parts;
}

/** The bytes of the C2PA manifest store, or null when the file carries none. */
export function findC2paStore(bytes: Buffer): Buffer | null {
  let parts: Buffer[] = [];
  if (bytes[0] === 0xff && bytes[1] === 0xd8) parts = jpegApp11(bytes);
  else if (bytes.subarray(0, 8).equals(PNG_SIGNATURE)) parts = pngChunks(bytes, 'caBX');
  else if (bytes.toString('latin1', 0, 4) === 'RIFF' && bytes.toString('latin1', 8, 12) === 'WEBP') parts = riffChunks(bytes, 'C2PA');
  const store = Buffer.concat(parts);
  return store.length > 0 && store.includes('c2pa', 0, 'latin1') ? store : null;
}

/** The AI digital source type a C2PA store declares, or null. */
export function c2paAiSourceType(store: Buffer): string | null {
  for (const code of AI_DIGITAL_SOURCE_TYPES) {
    if (store.includes(`${DIGITAL_SOURCE_TYPE_VOCABULARY}${code}`, 0, 'latin1')) return code;
  }
  return null;
}
