/**
 * fast-check arbitraries derived from JSON Schemas of an OpenAPI document: values that satisfy the
 * schema, values on its boundaries, and hostile ones (wrong types, huge, unicode, control characters,
 * encoded junk). Parameter values are strings (what travels in a URL or header); bodies are JSON values.
 *
 * @example
 * fc.sample(parameterValue(schema, ['All Projects']), 5);
 */
import fc from 'fast-check';
import { resolveRef, type JsonSchema } from './openapi-operations.js';

/**
 * Percent-encodes the UTF-8 bytes of `text`, like encodeURIComponent but total: a lone surrogate becomes
 * U+FFFD instead of throwing, as any real client would send it.
 */
export function percentEncode(text: string): string {
  return encodeURIComponent((text as string & { toWellFormed(): string }).toWellFormed());
}

/** A parameter value: `text` is percent-encoded when sent; `raw` goes into the URL as it is. */
export type WireValue = { text: string } | { raw: string };

/** Strings nobody should be able to break a server with. */
export const hostileText: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(
    '',
    ' ',
    'null',
    'undefined',
    'NaN',
    '-Infinity',
    '[]',
    '{}',
    '{"$gt":""}',
    "' OR 1=1 --",
    '\u0000',
    'a\u0000b',
    '\r\nX-Injected: 1',
    '\t\v\f',
    '\u202e\u200b\ufeff',
    '\ud800',
    '𝕏😀👩‍👩‍👧',
    'Ω≈ç√∫',
    '../../etc/passwd',
    '..%2F..%2F',
    '%00',
    '<script>alert(1)</script>',
    'All Projects\u0000',
    'All  Projects',
    'ALL PROJECTS',
    'Personal Certificates ',
    '00000000-0000-0000-0000-000000000000',
    '0a0a0a0a-0000-4000-8000-0000000000A1',
    '{0a0a0a0a-0000-4000-8000-0000000000a1}',
  ),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.string({ unit: 'grapheme', maxLength: 20 }),
  fc.string({ unit: fc.integer({ min: 0, max: 31 }).map((c) => String.fromCharCode(c)), maxLength: 8 }),
  fc.integer({ min: 1_000, max: 10_000 }).chain((n) => fc.constantFrom('x', 'é', '😀', '%', '\u0000').map((c) => c.repeat(n))),
);

/**
 * Characters every string must survive: NUL (PostgreSQL cannot store it), the other C0 controls and DEL,
 * C1's NEL, unpaired surrogates (jsonb refuses their escapes), line and paragraph separators, a non-character.
 */
export const controlCharacter: fc.Arbitrary<string> = fc.constantFrom(
  '\u0000', '\u0001', '\u0008', '\t', '\n', '\u000b', '\u000c', '\r', '\u001b', '\u001f', '\u007f', '\u0085', '\ud800', '\udbff', '\udc00', '\udfff', '\u2028', '\u2029', '\ufffe',
);

/** `text` with one to three control characters put in anywhere (start, middle, end). */
export function withControlCharacters(text: fc.Arbitrary<string>): fc.Arbitrary<string> {
  return fc.tuple(text, fc.array(fc.tuple(controlCharacter, fc.nat()), { minLength: 1, maxLength: 3 })).map(([t, inserts]) =>
    inserts.reduce((acc, [c, i]) => {
      const at = i % (acc.length + 1);
      return `${acc.slice(0, at)}${c}${acc.slice(at)}`;
    }, t),
  );
}

/** Percent-encoded junk sent verbatim: malformed escapes, overlong UTF-8, encoded separators. */
export const encodedJunk: fc.Arbitrary<string> = fc.constantFrom(
  '%',
  '%%',
  '%Z',
  '%ZZ',
  '%E2%82',
  '%C0%AF',
  '%ED%A0%80',
  '%FF%FE',
  '%2F',
  '%2e%2e',
  '%252F',
  '%00',
  '%0D%0A',
  'a%20b+c',
  '%F0%9F%98%80',
  '..',
  '.',
  '~',
  "!$&'()*,;=:@",
);

function integerValues(schema: JsonSchema): fc.Arbitrary<string> {
  const min = typeof schema.minimum === 'number' ? schema.minimum : -1_000_000;
  const max = typeof schema.maximum === 'number' ? schema.maximum : 1_000_000;
  // Small values dominate: a valid large page is expensive and proves no more than a small one.
  return fc.oneof(
    { weight: 4, arbitrary: fc.integer({ min, max: Math.min(max, min + 5) }).map(String) },
    { weight: 2, arbitrary: fc.constantFrom(min - 1, min, max, max + 1, 0, -1, 2 ** 31, -(2 ** 31) - 1, Number.MAX_SAFE_INTEGER + 2).map(String) },
    { weight: 1, arbitrary: fc.integer({ min, max }).map(String) },
    { weight: 2, arbitrary: fc.constantFrom('1.5', '1e3', '1E2', '-0', '+1', ' 1', '1 ', '0x10', '1_0', '١', '9'.repeat(400), 'Infinity', 'true', '2.0') },
  );
}

function stringValues(schema: JsonSchema, pool: readonly string[]): fc.Arbitrary<string> {
  const minLength = typeof schema.minLength === 'number' ? schema.minLength : 0;
  const maxLength = typeof schema.maxLength === 'number' ? schema.maxLength : 64;
  const lengths = [...new Set([minLength - 1, minLength, maxLength, maxLength + 1].filter((n) => n >= 0 && n <= 10_000))];
  const arbitraries: Array<fc.WeightedArbitrary<string>> = [
    { weight: 2, arbitrary: fc.string({ minLength, maxLength: Math.min(maxLength, minLength + 40) }) },
    { weight: 1, arbitrary: fc.constantFrom(...lengths).chain((n) => fc.string({ minLength: n, maxLength: n })) },
    { weight: 1, arbitrary: fc.constantFrom(...lengths).chain((n) => fc.string({ unit: 'grapheme', minLength: n, maxLength: n })) },
    { weight: 1, arbitrary: fc.uuid() },
  ];
  if (Array.isArray(schema.enum) && schema.enum.length > 0) arbitraries.push({ weight: 4, arbitrary: fc.constantFrom(...schema.enum.map(String)) });
  if (pool.length > 0) arbitraries.push({ weight: 5, arbitrary: fc.constantFrom(...pool) });
  // Otherwise good values with control characters (NUL included) in them: every string, every field.
  arbitraries.push({ weight: 3, arbitrary: withControlCharacters(fc.oneof(...arbitraries.map((a) => a.arbitrary))) });
  return fc.oneof(...arbitraries);
}

/** Values of the parameter's own type that satisfy or sit on the edges of its schema. */
export function typedParameterValue(schema: JsonSchema, pool: readonly string[]): fc.Arbitrary<string> {
  switch (schema.type) {
    case 'boolean':
      return fc.constantFrom('true', 'false', 'True', 'FALSE', '1', '0', 'yes', 'no', 'on', 'off', 't', 'f');
    case 'integer':
    case 'number':
      return integerValues(schema);
    default:
      return stringValues(schema, pool);
  }
}

/** A parameter value: mostly well-typed, often hostile, sometimes raw encoded junk. */
export function parameterValue(schema: JsonSchema, pool: readonly string[]): fc.Arbitrary<WireValue> {
  return fc.oneof(
    { weight: 6, arbitrary: typedParameterValue(schema, pool).map((text) => ({ text })) },
    { weight: 3, arbitrary: hostileText.map((text) => ({ text })) },
    { weight: 1, arbitrary: encodedJunk.map((raw) => ({ raw })) },
  );
}

/** JSON values shaped by a body schema (objects with their properties, arrays of items), or not. */
export function jsonFromSchema(document: JsonSchema, schema: JsonSchema, depth = 0): fc.Arbitrary<unknown> {
  const s = resolveRef(document, schema);
  const anyJson = fc.jsonValue({ maxDepth: 2 });
  if (depth > 4) return anyJson;
  const variants = (s.anyOf ?? s.oneOf) as JsonSchema[] | undefined;
  if (variants?.length) return fc.oneof(...variants.map((v) => jsonFromSchema(document, v, depth + 1)));
  let typed: fc.Arbitrary<unknown>;
  if (Array.isArray(s.enum) && s.enum.length > 0) typed = fc.constantFrom(...(s.enum as unknown[]));
  else if (s.const !== undefined) typed = fc.constant(s.const);
  else if (s.type === 'object' || s.properties) {
    const props = Object.entries((s.properties ?? {}) as Record<string, JsonSchema>);
    const required = new Set((s.required ?? []) as string[]);
    const record: Record<string, fc.Arbitrary<unknown>> = {};
    for (const [name, sub] of props) record[name] = jsonFromSchema(document, sub, depth + 1);
    typed = fc.record(record, { requiredKeys: props.map(([n]) => n).filter((n) => required.has(n)) });
  } else if (s.type === 'array') {
    typed = fc.array(jsonFromSchema(document, (s.items ?? {}) as JsonSchema, depth + 1), { maxLength: 4 });
  } else if (s.type === 'integer' || s.type === 'number') typed = integerValues(s).map(Number);
  else if (s.type === 'boolean') typed = fc.boolean();
  else if (s.type === 'string') typed = stringValues(s, []);
  else typed = anyJson;
  return fc.oneof({ weight: 5, arbitrary: typed }, { weight: 1, arbitrary: anyJson }, { weight: 1, arbitrary: hostileText });
}
