/**
 * Splits a page of `GET /v1/orders` as received (JSON text) into the text of each order, without parsing
 * the orders: an export writes them out as they came, so the cost per order is a scan for its end
 * instead of a parse and a serialization. String contents are skipped with `indexOf`, so the scan
 * touches little more than the punctuation. The other members (order_stats, next_page_token, ...) are
 * small and parsed as usual.
 */

const QUOTE = 34; // "
const BACKSLASH = 92;
const OPEN_BRACE = 123;
const CLOSE_BRACE = 125;
const OPEN_BRACKET = 91;
const CLOSE_BRACKET = 93;
const COMMA = 44;
const COLON = 58;

function malformed(at: number): never {
  throw new SyntaxError(`malformed JSON page at offset ${at}`);
}

function skipWhitespace(t: string, i: number): number {
  for (;;) {
    const c = t.charCodeAt(i);
    if (c === 32 || c === 10 || c === 13 || c === 9) i++;
    else return i;
  }
}

/** `t[i]` is an opening quote: the index just after the closing one. */
function stringEnd(t: string, i: number): number {
  let q = i;
  for (;;) {
    q = t.indexOf('"', q + 1);
    if (q === -1) malformed(i);
    // Escaped when preceded by an odd number of backslashes.
    let backslashes = 0;
    for (let b = q - 1; t.charCodeAt(b) === BACKSLASH; b--) backslashes++;
    if (backslashes % 2 === 0) return q + 1;
  }
}

/** The index just after the JSON value that starts at `i`. */
function valueEnd(t: string, i: number): number {
  const first = t.charCodeAt(i);
  if (first === QUOTE) return stringEnd(t, i);
  if (first !== OPEN_BRACE && first !== OPEN_BRACKET) {
    // A number, true, false or null: up to the next delimiter.
    let j = i;
    for (;;) {
      const c = t.charCodeAt(j);
      if (c === COMMA || c === CLOSE_BRACE || c === CLOSE_BRACKET || c === 32 || c === 10 || c === 13 || c === 9 || Number.isNaN(c)) break;
      j++;
    }
    if (j === i) malformed(i);
    return j;
  }
  let depth = 0;
  let j = i;
  for (;;) {
    const c = t.charCodeAt(j);
    if (c === QUOTE) {
      j = stringEnd(t, j);
      continue;
    }
    if (c === OPEN_BRACE || c === OPEN_BRACKET) depth++;
    else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
      depth--;
      if (depth === 0) return j + 1;
    } else if (Number.isNaN(c)) malformed(i);
    j++;
  }
}

export interface SplitPage {
  /** The JSON text of each element of the array member `arrayKey`, in order (empty when it is null). */
  items: string[];
  /** Every other member, parsed. */
  members: Record<string, unknown>;
}

/** Splits the JSON object `t` into the texts of the elements of its array member `arrayKey` and its other members. */
export function splitPage(t: string, arrayKey: string): SplitPage {
  const items: string[] = [];
  const members: Record<string, unknown> = {};
  let i = skipWhitespace(t, 0);
  if (t.charCodeAt(i) !== OPEN_BRACE) malformed(i);
  i = skipWhitespace(t, i + 1);
  if (t.charCodeAt(i) === CLOSE_BRACE) return { items, members };
  for (;;) {
    if (t.charCodeAt(i) !== QUOTE) malformed(i);
    const keyEnd = stringEnd(t, i);
    const key = JSON.parse(t.slice(i, keyEnd)) as string;
    i = skipWhitespace(t, keyEnd);
    if (t.charCodeAt(i) !== COLON) malformed(i);
    i = skipWhitespace(t, i + 1);
    if (key === arrayKey && t.charCodeAt(i) === OPEN_BRACKET) {
      i = skipWhitespace(t, i + 1);
      if (t.charCodeAt(i) === CLOSE_BRACKET) i++;
      else {
        for (;;) {
          const end = valueEnd(t, i);
          items.push(t.slice(i, end));
          i = skipWhitespace(t, end);
          const c = t.charCodeAt(i);
          i++;
          if (c === CLOSE_BRACKET) break;
          if (c !== COMMA) malformed(i - 1);
          i = skipWhitespace(t, i);
        }
      }
    } else {
      const end = valueEnd(t, i);
      members[key] = JSON.parse(t.slice(i, end));
      i = end;
    }
    i = skipWhitespace(t, i);
    const c = t.charCodeAt(i);
    if (c === CLOSE_BRACE) return { items, members };
    if (c !== COMMA) malformed(i);
    i = skipWhitespace(t, i + 1);
  }
}

/** One JSON text on one line: as it is unless it holds line breaks (whitespace between tokens). */
export function oneLine(json: string): string {
  return json.includes('\n') || json.includes('\r') ? JSON.stringify(JSON.parse(json)) : json;
}
