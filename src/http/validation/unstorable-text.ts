/**
 * Text that PostgreSQL cannot store, refused where requests enter (docs/api.md, "Text the service refuses"):
 * U+0000 (a `text` value cannot hold it, `jsonb` refuses its escape) and unpaired UTF-16 surrogates
 * (`jsonb` refuses their escapes; in `text` they would silently become U+FFFD). Every other character,
 * other control characters included, is stored as sent and escaped wherever it is shown.
 *
 * One walk over a request part finds every such string (object keys included), so each route gets the same
 * answer without checking its own fields: the API's validators (validator-factory.ts) answer 422 naming the
 * field, the web application's pages their own error (src/web/refused-text.ts).
 */
import type { ValidationIssue } from './validation-issue.js';

// A NUL, a high surrogate not followed by a low one, or a low surrogate not preceded by a high one.
const UNSTORABLE = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** `text` with every character that cannot be stored replaced by U+FFFD (to show refused input again). */
export function withoutUnstorable(text: string): string {
  return text.replace(new RegExp(UNSTORABLE.source, 'g'), '\uFFFD');
}

/** The first character of `text` that cannot be stored, as `U+XXXX`, or null. */
export function unstorableCharacter(text: string): string | null {
  const m = UNSTORABLE.exec(text);
  return m ? `U+${m[0].charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}` : null;
}

/** The issue of one refused string at `loc` (a `value_error`, as pydantic names a custom check's failure). */
export function unstorableTextIssue(loc: Array<string | number>, input: string, character: string): ValidationIssue {
  return {
    type: 'value_error',
    loc,
    input,
    ctx: { reason: `the text contains ${character}, which cannot be stored` },
    messageKey: 'validation.unstorable_character',
    vars: { character },
  };
}

/** A place in the walked value: its parent's place and its own key (locations are built only for findings). */
interface Place {
  parent: Place | null;
  key: string | number | null;
}

function locationOf(place: Place, root: Array<string | number>): Array<string | number> {
  const keys: Array<string | number> = [];
  for (let p: Place | null = place; p && p.key !== null; p = p.parent) keys.push(p.key);
  return [...root, ...keys.reverse()];
}

/**
 * Every string in `value` (a parsed body, query, form or path parameters) that cannot be stored, with its
 * location under `loc`, in document order. The walk is iterative and linear (JSON bodies are depth-bounded
 * already, forms are flat) and stops after `limit` findings.
 */
export function unstorableTextIssues(value: unknown, loc: Array<string | number>, limit = 20): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  // Popped in document order: an object's refused key is reported where its value would be.
  const stack: Array<{ value: unknown; place: Place; refusedKey?: string }> = [{ value, place: { parent: null, key: null } }];
  while (stack.length > 0 && issues.length < limit) {
    const item = stack.pop()!;
    if (item.refusedKey !== undefined) {
      issues.push(unstorableTextIssue(locationOf(item.place, loc), item.refusedKey, unstorableCharacter(item.refusedKey)!));
    } else if (typeof item.value === 'string') {
      const character = unstorableCharacter(item.value);
      if (character) issues.push(unstorableTextIssue(locationOf(item.place, loc), item.value, character));
    } else if (Array.isArray(item.value)) {
      for (let i = item.value.length - 1; i >= 0; i--) stack.push({ value: item.value[i], place: { parent: item.place, key: i } });
    } else if (item.value !== null && typeof item.value === 'object') {
      const keys = Object.keys(item.value);
      for (let i = keys.length - 1; i >= 0; i--) {
        const key = keys[i]!;
        const place = { parent: item.place, key };
        if (unstorableCharacter(key)) stack.push({ value: undefined, place, refusedKey: key });
        else stack.push({ value: (item.value as Record<string, unknown>)[key], place });
      }
    }
  }
  return issues;
}
