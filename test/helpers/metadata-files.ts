/**
 * Images carrying real metadata blocks, built on the spot (nothing downloaded): XMP packets through
 * sharp's withXmp (JPEG APP1, WebP) or as a hand-built PNG `iTXt` chunk (`XML:com.adobe.xmp`), IPTC IIM
 * records in a hand-built JPEG APP13 (Photoshop 3.0 `8BIM` 0x0404) segment, EXIF through withExif. Used by
 * the metadata check's tests: credit fields naming a company (false positives of old) and the software
 * fields that really declare a generator.
 */
import { crc32 } from 'node:zlib';
import sharp from 'sharp';

const XMP_NAMESPACES = {
  rdf: 'http://www.w3.org/1999/02/22-rdf-syntax-ns#',
  dc: 'http://purl.org/dc/elements/1.1/',
  photoshop: 'http://ns.adobe.com/photoshop/1.0/',
  xmp: 'http://ns.adobe.com/xap/1.0/',
  xmpMM: 'http://ns.adobe.com/xap/1.0/mm/',
  stEvt: 'http://ns.adobe.com/xap/1.0/sType/ResourceEvent#',
  tiff: 'http://ns.adobe.com/tiff/1.0/',
  Iptc4xmpExt: 'http://iptc.org/std/Iptc4xmpExt/2008-02-29/',
};

const escapeXml = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/"/g, '&quot;');

export interface XmpFields {
  /** Simple properties written as attributes, e.g. `{ 'photoshop:Source': 'Midjourney Inc. photo desk' }`. */
  simple?: Record<string, string>;
  /** `dc:source` (a simple element). */
  dcSource?: string;
  /** `dc:rights` (a language alternative). */
  dcRights?: string;
  /** `dc:creator` (an ordered list). */
  dcCreator?: string[];
  /** `dc:description` (a language alternative). */
  dcDescription?: string;
  /** `xmpMM:History` events: the software agent of each. */
  historyAgents?: string[];
}

/** An XMP packet with the given properties (a real RDF/XML serialization, as Adobe tools write it). */
export function xmpWith(fields: XmpFields): string {
  const ns = Object.entries(XMP_NAMESPACES).map(([p, uri]) => ` xmlns:${p}="${uri}"`).join('');
  const attrs = Object.entries(fields.simple ?? {}).map(([name, value]) => ` ${name}="${escapeXml(value)}"`).join('');
  const alt = (name: string, value: string) => `<${name}><rdf:Alt><rdf:li xml:lang="x-default">${escapeXml(value)}</rdf:li></rdf:Alt></${name}>`;
  const body = [
    fields.dcSource !== undefined ? `<dc:source>${escapeXml(fields.dcSource)}</dc:source>` : '',
    fields.dcRights !== undefined ? alt('dc:rights', fields.dcRights) : '',
    fields.dcDescription !== undefined ? alt('dc:description', fields.dcDescription) : '',
    fields.dcCreator ? `<dc:creator><rdf:Seq>${fields.dcCreator.map((c) => `<rdf:li>${escapeXml(c)}</rdf:li>`).join('')}</rdf:Seq></dc:creator>` : '',
    fields.historyAgents
      ? `<xmpMM:History><rdf:Seq>${fields.historyAgents
          .map((agent, i) => `<rdf:li rdf:parseType="Resource"><stEvt:action>${i === 0 ? 'created' : 'saved'}</stEvt:action><stEvt:softwareAgent>${escapeXml(agent)}</stEvt:softwareAgent></rdf:li>`)
          .join('')}</rdf:Seq></xmpMM:History>`
      : '',
  ].join('');
  return `<?xpacket begin="\uFEFF" id="W5M0MpCehiHzreSzNTczkc9d"?><x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="${XMP_NAMESPACES.rdf}">` +
    `<rdf:Description rdf:about=""${ns}${attrs}>${body}</rdf:Description></rdf:RDF></x:xmpmeta><?xpacket end="w"?>`;
}

const blank = () => sharp({ create: { width: 24, height: 16, channels: 3, background: '#808080' } });

/** A JPEG or WebP whose XMP (APP1 / XMP chunk, written by libvips) is `packet`. */
export function xmpImage(format: 'jpeg' | 'webp', packet: string): Promise<Buffer> {
  return blank().withXmp(packet).toFormat(format).toBuffer();
}

function pngChunk(type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([length, body, crc]);
}

/** A PNG carrying `packet` in an uncompressed `iTXt` chunk keyed `XML:com.adobe.xmp` (as Adobe writes it). */
export async function xmpPng(packet: string): Promise<Buffer> {
  const png = await blank().png().toBuffer();
  // keyword \0, compression flag 0, method 0, language tag "" \0, translated keyword "" \0, UTF-8 text
  const data = Buffer.concat([Buffer.from('XML:com.adobe.xmp\0\0\0\0\0', 'latin1'), Buffer.from(packet, 'utf8')]);
  return Buffer.concat([png.subarray(0, 33), pngChunk('iTXt', data), png.subarray(33)]);
}

/** IPTC IIM application record (2) datasets, e.g. `{ 115: 'Source', 110: 'Credit', 65: 'OriginatingProgram' }`. */
export type IptcRecords = Record<number, string>;

/** A JPEG with an APP13 "Photoshop 3.0" segment holding one `8BIM` 0x0404 (IPTC-NAA) resource. */
export async function iptcJpeg(records: IptcRecords): Promise<Buffer> {
  const dataset = (id: number, value: Buffer) => {
    const head = Buffer.from([0x1c, 2, id, 0, 0]);
    head.writeUInt16BE(value.length, 3);
    return Buffer.concat([head, value]);
  };
  const version = dataset(0, Buffer.from([0, 4])); // 2:00 RecordVersion, first as the standard asks
  const iim = Buffer.concat([version, ...Object.entries(records).map(([id, value]) => dataset(Number(id), Buffer.from(value, 'utf8')))]);
  const resource = Buffer.concat([Buffer.from('8BIM\x04\x04\0\0', 'latin1'), Buffer.alloc(4), iim, Buffer.alloc(iim.length % 2)]);
  resource.writeUInt32BE(iim.length, 8);
  const payload = Buffer.concat([Buffer.from('Photoshop 3.0\0', 'latin1'), resource]);
  const marker = Buffer.from([0xff, 0xed, 0, 0]);
  marker.writeUInt16BE(payload.length + 2, 2);
  const jpeg = await blank().jpeg().toBuffer();
  return Buffer.concat([jpeg.subarray(0, 2), marker, payload, jpeg.subarray(2)]);
}

/** A JPEG with the given EXIF IFD0 tags (ASCII values), e.g. `{ Artist: 'OpenAI' }`. */
export function exifJpeg(ifd0: Record<string, string>): Promise<Buffer> {
  return blank().withExif({ IFD0: ifd0 }).jpeg().toBuffer();
}
