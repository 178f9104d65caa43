/**
 * The last bodies of the listing's pages, by request, each with everything it was made from. A page body
 * is a function of its inputs alone: the rows' ids and row versions and the scope's counts (read from the
 * database for every request: `PageVersionsText`), the caller's projects as the page shows them, the
 * page-token binding, the page size, the shape, and the signing time of its presigned URLs (a second).
 * When a request's inputs equal those of the body kept for the same request, that body is the answer, byte
 * for byte what assembling it again would give, so the database is still read for every request and
 * nothing it has changed is ever served stale: a changed row has a new version, a changed count a new
 * `stats`, and either misses here.
 *
 * Bounded by bytes (bodies and the texts they were made from); least recently used first out.
 */
import { LRUCache } from 'lru-cache';

/** Default bound: about ten pages of 200 full orders. */
export const PAGE_BODY_MEMO_BYTES = 4 * 1024 * 1024;

/** Everything a body is made from besides what names the request. */
export interface PageBodyInputs {
  /** The rows' ids and versions and the scope's counts, as one text (order-listing.repository.ts PageVersions.key). */
  versions: string;
  /** The caller's projects as the page shows them, serialized (roles and names included). */
  projects: string;
  nowSeconds: number;
}

interface Entry extends PageBodyInputs {
  body: Buffer;
}

/** Requests remembered as seen (a key of ~100-300 bytes each: about 2 MB at most). */
export const SEEN_REQUESTS = 8192;

export class PageBodyMemo {
  private readonly bodies: LRUCache<string, Entry>;
  private readonly seen = new LRUCache<string, true>({ max: SEEN_REQUESTS });

  constructor(maxBytes = PAGE_BODY_MEMO_BYTES) {
    this.bodies = new LRUCache<string, Entry>({
      maxSize: maxBytes,
      // Strings count two bytes a character at most; the key is short.
      sizeCalculation: (e, key) => e.body.length + 2 * (e.versions.length + e.projects.length + key.length) + 200,
    });
  }

  /**
   * Whether `request` was asked for before (and remembers it now). Only a request asked for again keeps
   * items and a body: the pages of a walk are asked for once each, and keeping them would push out the
   * pages that are read again.
   */
  seenBefore(request: string): boolean {
    if (this.seen.get(request)) return true;
    this.seen.set(request, true);
    return false;
  }

  /** The body kept for `request` if it was made from exactly `inputs`. */
  get(request: string, inputs: PageBodyInputs): Buffer | undefined {
    const e = this.bodies.get(request);
    if (e === undefined) return undefined;
    const same =
      e.nowSeconds === inputs.nowSeconds && e.versions === inputs.versions && e.projects === inputs.projects;
    return same ? e.body : undefined;
  }

  set(request: string, inputs: PageBodyInputs, body: Buffer): void {
    this.bodies.set(request, { ...inputs, body });
  }

  /** Bodies kept now. */
  get size(): number {
    return this.bodies.size;
  }
}
