/**
 * A page read once, as text (order-listing.service.ts, the first read of a request): the items PostgreSQL
 * assembled (order-listing.repository.ts, "Marks in an assembled page"), their marks resolved in one pass
 * over each item's string, the page joined in chunks and encoded once. Nothing is kept: a walk through an
 * organization reads each page once, and keeping its items (page-item.ts, page-item-cache.ts) cost more
 * than it could ever save, and would push out the items of the pages that are read again. The bytes form of
 * the same marks is page-item.ts; the listing's property tests hold both to the page spliced from rows.
 */
import { keyOwnershipCheck } from '../../storage/object-storage/object-key.js';
import type { UrlPresigner } from '../../storage/object-storage/presign.js';

/** Marks of an assembled page (order-listing.repository.ts): chr(1), then S (splice), or N, P, L (up to chr(2)). */
const MARK = '\u0001';
const MARK_END = '\u0002';
const SPLICE = 0x53; // 'S'
const PREVIEW = 0x50; // 'P'
const PROJECT = 0x4e; // 'N'
const CLOSING_BRACE = 0x7d;

/**
 * Items per chunk of a page's text: ~35 KB of full orders. A page of 200 full orders is ~260 KB, and one
 * string that size lives in V8's large-object space: a fresh mapping per string, page faults on every first
 * touch, munmap after GC (a quarter of the server's CPU when measured). Chunks stay in the regular heap.
 */
export const ITEMS_PER_CHUNK = 32;

/**
 * The page's items as JSON text, comma-separated, in chunks of `itemsPerChunk`, with every mark resolved
 * in one pass over each item found with indexOf (a character search): each document's closing brace is
 * dropped at its splice mark, each project mark becomes the project as the caller sees it, and each
 * preview key and layers mark becomes its (cached) presigned URLs.
 */
export function resolvePageTexts(
  presigner: UrlPresigner,
  organizationId: string,
  items: string[],
  projectJson: ReadonlyMap<string, string>,
  now: number,
  itemsPerChunk: number,
): string[] {
  // The same rule as toListedOrder: a key outside the organization's prefix gets no URL.
  const own = keyOwnershipCheck(organizationId);
  const previewUrl = (keyJson: string) => {
    const key = keyJson.includes('\\') ? (JSON.parse(keyJson) as string) : keyJson.slice(1, -1);
    return own(key) ? presigner.presignJson(key, now) : 'null';
  };
  const layersInfo = (layersJson: string) => {
    const layers = (JSON.parse(layersJson) as Array<{ layer_name: string; key: string }>).filter((l) => own(l.key));
    return JSON.stringify(layers.map((l) => ({ layer_name: l.layer_name, layer_url: presigner.presign(l.key, now) })));
  };
  const chunks: string[] = [];
  let out = '';
  items.forEach((item, i) => {
    if (i % itemsPerChunk !== 0) out += ',';
    let from = 0;
    for (let mark = item.indexOf(MARK); mark !== -1; mark = item.indexOf(MARK, from)) {
      const kind = item.charCodeAt(mark + 1);
      if (kind === SPLICE) {
        // Stored documents are JSON objects written by the renderer: they end with their closing brace.
        if (item.charCodeAt(mark - 1) !== CLOSING_BRACE) throw new Error('stored order document is not a JSON object');
        out += item.slice(from, mark - 1);
        from = mark + 2;
        continue;
      }
      const end = item.indexOf(MARK_END, mark + 2);
      const value = item.slice(mark + 2, end);
      // A project the caller does not see (or none: a personal order) shows null.
      out += item.slice(from, mark) + (kind === PROJECT ? (projectJson.get(value) ?? 'null') : kind === PREVIEW ? previewUrl(value) : layersInfo(value));
      from = end + 1;
    }
    out += item.slice(from);
    if ((i + 1) % itemsPerChunk === 0 || i === items.length - 1) {
      chunks.push(out);
      out = '';
    }
  });
  return chunks;
}

/** Texts as one UTF-8 buffer, allocated once at its exact size: no intermediate buffers, no second copy. */
export function utf8Join(texts: string[]): Buffer {
  let size = 0;
  for (const text of texts) size += Buffer.byteLength(text);
  const out = Buffer.allocUnsafeSlow(size);
  let offset = 0;
  for (const text of texts) offset += out.write(text, offset);
  return out;
}

