/**
 * One item of a listing page as bytes. The database assembles each order's item as text with marks
 * (order-listing.repository.ts, "Marks in an assembled page"); `parsePageItem` encodes it to UTF-8 once and
 * cuts it at its marks, and `appendPageItem` resolves the marks for one response (the caller's view of the
 * project, presigned URLs of the current window) without copying the item's own bytes: the response is the
 * item's slices and the resolved values, joined once into the body.
 */
import { keyOwnershipCheck } from '../../storage/object-storage/object-key.js';
import type { UrlPresigner } from '../../storage/object-storage/presign.js';

const MARK = 0x01;
const MARK_END = 0x02;
const SPLICE = 0x53; // 'S'
const PREVIEW = 0x50; // 'P'
const PROJECT = 0x4e; // 'N'
const LAYERS = 0x4c; // 'L'
const CLOSING_BRACE = 0x7d;
const NULL_BYTES = Buffer.from('null');

interface ProjectMark {
  /** The order's project id, '' for a personal order. */
  project: string;
}

interface PreviewMark {
  /** The preview key, or null when the order's key is outside its organization (no URL). */
  preview: string | null;
}

interface LayersMark {
  /** The stored layers whose keys are the organization's own (the others get no entry). */
  layers: Array<{ layer_name: string; key: string }>;
  /** The resolved layers_info of the last signing time asked for: the URLs change once a window. */
  memo?: { now: number; bytes: Buffer };
}

type Segment = Buffer | ProjectMark | PreviewMark | LayersMark;

/** An item cut at its marks; `bytes` is what it holds (for the cache's memory bound). */
export interface PageItem {
  readonly segments: readonly Segment[];
  readonly bytes: number;
  /** The id in its project mark ('' for a personal order), null without one. */
  readonly projectId: string | null;
  /**
   * The item as the last response resolved it. Resolving is a function of the project's value and the
   * signing time alone, so the next response with the same two takes these bytes as they are: a page read
   * again within the same second costs one part per item instead of eight.
   */
  resolved?: { project: Buffer | undefined; nowSeconds: number; bytes: Buffer };
}

/** What a response resolves marks with: the caller's projects (as this page shows them) and a signing time. */
export interface ItemResolution {
  /** The `project` value (or `project_name` of a preview) of each project the caller sees, by id. */
  projects: ReadonlyMap<string, Buffer>;
  presigner: UrlPresigner;
  nowSeconds: number;
}

/**
 * Cuts an assembled item of an order of `organizationId`. The same rules as the page spliced from rows
 * (order-listing.service.ts toListedOrder): a key outside the organization's prefix gets no URL.
 * @throws Error when the stored document is not a JSON object (a bug upstream: never served half-spliced).
 */
export function parsePageItem(text: string, organizationId: string): PageItem {
  const own = keyOwnershipCheck(organizationId);
  // One allocation of its own (not a slice of Node's shared pool, which a cached slice would pin).
  const size = Buffer.byteLength(text);
  const item = Buffer.allocUnsafeSlow(size);
  item.write(text, 0);
  const segments: Segment[] = [];
  let projectId: string | null = null;
  let from = 0;
  for (let mark = item.indexOf(MARK, from); mark !== -1; mark = item.indexOf(MARK, from)) {
    const kind = item[mark + 1];
    if (kind === SPLICE) {
      // Stored documents are JSON objects written by the renderer: they end with their closing brace.
      if (item[mark - 1] !== CLOSING_BRACE) throw new Error('stored order document is not a JSON object');
      segments.push(item.subarray(from, mark - 1));
      from = mark + 2;
      continue;
    }
    const end = item.indexOf(MARK_END, mark + 2);
    if (end === -1) throw new Error('unterminated mark in an assembled order item');
    if (mark > from) segments.push(item.subarray(from, mark));
    const value = item.toString('utf8', mark + 2, end);
    if (kind === PROJECT) {
      segments.push({ project: value });
      projectId = value;
    }
    else if (kind === PREVIEW) {
      const key = JSON.parse(value) as string;
      segments.push({ preview: own(key) ? key : null });
    } else if (kind === LAYERS) {
      const layers = (JSON.parse(value) as Array<{ layer_name: string; key: string }>).filter((l) => own(l.key));
      segments.push({ layers: layers.map((l) => ({ layer_name: l.layer_name, key: l.key })) });
    } else {
      throw new Error(`unknown mark ${String.fromCharCode(kind ?? 0)} in an assembled order item`);
    }
    from = end + 1;
  }
  if (from < item.length) segments.push(item.subarray(from));
  return { segments, bytes: size, projectId };
}

/** The item's bytes for one response. */
export function resolvePageItem(item: PageItem, resolution: ItemResolution): Buffer {
  const project = item.projectId === null ? undefined : resolution.projects.get(item.projectId);
  const last = item.resolved;
  if (last !== undefined && last.nowSeconds === resolution.nowSeconds && (last.project === project || (last.project !== undefined && project !== undefined && last.project.equals(project)))) {
    return last.bytes;
  }
  const parts: Buffer[] = [];
  const size = appendPageItem(item, parts, resolution);
  // Kept with the cached item: a buffer of its own, not a slice of Node's shared pool (which it would pin).
  const bytes = Buffer.allocUnsafeSlow(size);
  let offset = 0;
  for (const part of parts) offset += part.copy(bytes, offset);
  item.resolved = { project, nowSeconds: resolution.nowSeconds, bytes };
  return bytes;
}

/** Appends the item's bytes for one response to `out`; returns how many bytes it appended. */
function appendPageItem(item: PageItem, out: Buffer[], resolution: ItemResolution): number {
  let added = 0;
  for (const segment of item.segments) {
    let bytes: Buffer;
    if (Buffer.isBuffer(segment)) bytes = segment;
    else if ('project' in segment) bytes = resolution.projects.get(segment.project) ?? NULL_BYTES; // a project the caller does not see: null
    else if ('preview' in segment) bytes = segment.preview === null ? NULL_BYTES : resolution.presigner.presignJsonBytes(segment.preview, resolution.nowSeconds);
    else bytes = layersInfo(segment, resolution);
    out.push(bytes);
    added += bytes.length;
  }
  return added;
}

function layersInfo(mark: LayersMark, { presigner, nowSeconds }: ItemResolution): Buffer {
  if (mark.memo?.now === nowSeconds) return mark.memo.bytes;
  const json = JSON.stringify(mark.layers.map((l) => ({ layer_name: l.layer_name, layer_url: presigner.presign(l.key, nowSeconds) })));
  const bytes = Buffer.from(json, 'utf8');
  mark.memo = { now: nowSeconds, bytes };
  return bytes;
}
