/**
 * The `input` a 422 echoes, bounded: pydantic echoes what it received whole, but a body of up to 1 MiB
 * (or a deeply nested one) must not come back whole in every refusal, nor cost more to render than to
 * refuse. Short values are echoed exactly; a longer string is cut to its first MAX_INPUT_CHARS
 * characters followed by `…`; an array or object keeps its first MAX_INPUT_ITEMS members down to
 * MAX_INPUT_DEPTH levels, and what lies deeper is `"…"` (docs/api.md, "Errors").
 */

/** Characters of a string `input` echoed before `…`. */
export const MAX_INPUT_CHARS = 256;
/** Members of an array or object `input` echoed. */
export const MAX_INPUT_ITEMS = 20;
/** Levels of an array or object `input` echoed. */
export const MAX_INPUT_DEPTH = 4;

const ELLIPSIS = '…';

/** A string as a 422 may echo it (in `input` or as a member of `loc`, e.g. an unknown field's name). */
export function boundedText(text: string): string {
  if (text.length <= MAX_INPUT_CHARS) return text;
  // Never cut between the two halves of a surrogate pair.
  const end = /[\uD800-\uDBFF]/.test(text[MAX_INPUT_CHARS - 1]!) ? MAX_INPUT_CHARS - 1 : MAX_INPUT_CHARS;
  return `${text.slice(0, end)}${ELLIPSIS}`;
}

/** `value` as a 422 may echo it. */
export function boundedInput(value: unknown, depth = 0): unknown {
  if (typeof value === 'string') return boundedText(value);
  if (value === null || typeof value !== 'object') return value;
  if (depth >= MAX_INPUT_DEPTH) return ELLIPSIS;
  if (Array.isArray(value)) {
    const kept = value.slice(0, MAX_INPUT_ITEMS).map((item) => boundedInput(item, depth + 1));
    return value.length > MAX_INPUT_ITEMS ? [...kept, ELLIPSIS] : kept;
  }
  const entries = Object.entries(value as Record<string, unknown>);
  const out: Record<string, unknown> = {};
  for (const [key, item] of entries.slice(0, MAX_INPUT_ITEMS)) out[boundedText(key)] = boundedInput(item, depth + 1);
  if (entries.length > MAX_INPUT_ITEMS) out[ELLIPSIS] = ELLIPSIS;
  return out;
}
