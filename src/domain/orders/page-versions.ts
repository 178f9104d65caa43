/**
 * A listing page's first read (order-listing.repository.ts fetchPageVersionsAndStats): the scope's counts,
 * the caller's visible projects, and the page's order ids with their row versions, which PostgreSQL sends
 * as one text instead of one result row each. Most requests for a page asked for again are answered with
 * the body kept from the same inputs (page-body-memo.ts) and never look at the rows; decoding 201 result
 * rows in the driver cost about a quarter of such a request's server CPU. The text is split into rows on
 * first use.
 *
 * The text: one entry per row, in page order, separated by a line feed; an entry is the order id's length
 * in characters (Unicode code points, as PostgreSQL's length() counts them), a colon, the order id, then
 * the row version (`xmin:(block,offset)`: digits, a colon, parentheses and a comma, never a line feed).
 * The length prefix makes any order id safe (an id may hold colons and line feeds).
 */
import type { OrderStatsT } from '../../contract/schemas.js';
import type { VisibleProject } from './visible-projects.repository.js';

/** A row of a page's first read: its id and row version; `creation_micros` only for the row at position `limit`. */
export interface PageVersionRow {
  order_id: string;
  version: string;
  creation_micros: string | null;
}

/** The entries of the text (see above) as [order id, row version] pairs. @throws on a malformed text (a bug). */
export function parseVersionEntries(text: string): Array<[string, string]> {
  const entries: Array<[string, string]> = [];
  let i = 0;
  while (i < text.length) {
    const colon = text.indexOf(':', i);
    const length = colon > i ? Number(text.slice(i, colon)) : NaN;
    if (!Number.isInteger(length) || length < 0) throw new Error(`malformed page versions at ${i}`);
    let end = colon + 1;
    for (let n = 0; n < length; n++) {
      const unit = text.charCodeAt(end);
      if (Number.isNaN(unit)) throw new Error(`malformed page versions at ${i}: the order id runs past the end`);
      // A character outside the Basic Multilingual Plane is two UTF-16 code units.
      end += unit >= 0xd800 && unit <= 0xdbff ? 2 : 1;
    }
    const newline = text.indexOf('\n', end);
    const next = newline === -1 ? text.length : newline;
    entries.push([text.slice(colon + 1, end), text.slice(end, next)]);
    i = next + 1;
  }
  return entries;
}

export class PageVersions {
  /** The rows' ids and versions and the counts as one text, so equal reads compare as text (page-body-memo.ts). */
  readonly key: string;
  readonly #versions: string;
  readonly #lastMicros: string | null;
  readonly #limit: number;
  #rows: PageVersionRow[] | null = null;

  /**
   * @param statsJson the counts as read (part of the key)
   * @param versions the rows' text (see above)
   * @param lastMicros the keyset micros of the row at position `limit`, if there is one
   * @param visible the caller's visible projects, when they were asked for
   */
  constructor(
    readonly stats: OrderStatsT,
    statsJson: string,
    versions: string,
    lastMicros: string | null,
    limit: number,
    readonly visible: VisibleProject[] | null,
  ) {
    this.key = `${statsJson}\n${versions}`;
    this.#versions = versions;
    this.#lastMicros = lastMicros;
    this.#limit = limit;
  }

  /** The rows in page order (limit + 1 at most: one beyond the page says another page exists). */
  get rows(): PageVersionRow[] {
    this.#rows ??= parseVersionEntries(this.#versions).map(([order_id, version], i) => ({
      order_id,
      version,
      creation_micros: i === this.#limit - 1 ? this.#lastMicros : null,
    }));
    return this.#rows;
  }
}
