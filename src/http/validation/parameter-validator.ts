/**
 * Validates path, query and header parameters the way FastAPI (pydantic v2, lax mode) does, driven by
 * the route's TypeBox schema, which stays the single description of each parameter (and so the OpenAPI
 * document's). Ajv is not used here because its coercion differs from pydantic's: it accepts only
 * `true`/`false` as booleans, and it rewrites the values in place, losing the raw `input` a 422 must echo.
 *
 * Supported parameter schemas: string (minLength, maxLength, pattern, enum), integer and number
 * (minimum, maximum, exclusiveMinimum, exclusiveMaximum), boolean; each optional with a `default`.
 * Anything else is refused when the route is compiled, so a schema can never be silently unchecked.
 */
import { unstorableCharacter, unstorableTextIssue } from './unstorable-text.js';
import type { ParameterLocation, ValidationIssue } from './validation-issue.js';

type Scalar = string | number | boolean;

interface ParameterSchema {
  type?: unknown;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  enum?: unknown[];
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
  default?: unknown;
}

interface ObjectSchema {
  type?: unknown;
  properties?: Record<string, ParameterSchema>;
  required?: string[];
}

export interface ParameterValidationResult {
  /** The declared parameters, converted to their types, defaults applied (only when no issue). */
  value: Record<string, Scalar>;
  issues: ValidationIssue[];
}

/** A compiled validator of one request part; pure: never mutates its input. */
export type ParameterValidator = (raw: unknown) => ParameterValidationResult;

/** Thrown at route registration for a parameter schema this validator cannot check faithfully. */
export class UnsupportedParameterSchemaError extends Error {
  override name = 'UnsupportedParameterSchemaError';
}

const TRUE_WORDS = new Set(['true', '1', 'yes', 'on', 't', 'y']);
const FALSE_WORDS = new Set(['false', '0', 'no', 'off', 'f', 'n']);

/** pydantic's lax str → bool: case-insensitive words, no trimming. */
export function parseBoolean(text: string): boolean | null {
  const lower = text.toLowerCase();
  if (TRUE_WORDS.has(lower)) return true;
  if (FALSE_WORDS.has(lower)) return false;
  return null;
}

/**
 * pydantic's lax str → int: surrounding whitespace ignored, an optional sign, digits with single
 * underscores between them, and an optional fraction of zeros only (`"5.0"`).
 */
export function parseInteger(text: string): number | null {
  const m = /^([+-]?)(\d+(?:_\d+)*)(?:\.0*)?$/.exec(text.trim());
  if (!m) return null;
  const n = Number(`${m[1]}${m[2]!.replace(/_/g, '')}`);
  return Number.isFinite(n) ? n : null;
}

/** pydantic's lax str → float (finite numbers; `inf`/`nan` are refused here by choice). */
export function parseNumber(text: string): number | null {
  const t = text.trim();
  if (!/^[+-]?(\d+(_\d+)*)?(\.\d*)?([eE][+-]?\d+)?$/.test(t) || !/\d/.test(t)) return null;
  const n = Number(t.replace(/_/g, ''));
  return Number.isFinite(n) ? n : null;
}

function scalarType(name: string, schema: ParameterSchema): 'string' | 'integer' | 'number' | 'boolean' {
  const t = schema.type;
  if (t === 'string' || t === 'integer' || t === 'number' || t === 'boolean') return t;
  throw new UnsupportedParameterSchemaError(`parameter "${name}": only string, integer, number and boolean parameters are supported`);
}

/** The value a parameter validator sees: the last one when a parameter is repeated (FastAPI does the same). */
function lastValue(value: unknown): unknown {
  return Array.isArray(value) ? value[value.length - 1] : value;
}

/** Characters as pydantic counts them (code points, not UTF-16 units). */
const codePointLength = (s: string) => [...s].length;

function checkString(loc: ValidationIssue['loc'], s: string, schema: ParameterSchema): ValidationIssue | null {
  const unstorable = unstorableCharacter(s);
  if (unstorable) return unstorableTextIssue(loc, s, unstorable);
  const len = codePointLength(s);
  if (schema.minLength !== undefined && len < schema.minLength) {
    return { type: 'string_too_short', loc, input: s, ctx: { min_length: schema.minLength }, messageKey: 'validation.string_too_short' };
  }
  if (schema.maxLength !== undefined && len > schema.maxLength) {
    return { type: 'string_too_long', loc, input: s, ctx: { max_length: schema.maxLength }, messageKey: 'validation.string_too_long' };
  }
  if (schema.pattern !== undefined && !new RegExp(schema.pattern, 'u').test(s)) {
    return { type: 'string_pattern_mismatch', loc, input: s, ctx: { pattern: schema.pattern }, messageKey: 'validation.string_pattern_mismatch' };
  }
  if (schema.enum !== undefined && !schema.enum.includes(s)) {
    const expected = schema.enum.map((v) => `'${String(v)}'`).join(', ');
    return { type: 'enum', loc, input: s, ctx: { expected }, messageKey: 'validation.enum' };
  }
  return null;
}

function checkRange(loc: ValidationIssue['loc'], raw: unknown, n: number, schema: ParameterSchema): ValidationIssue | null {
  if (schema.exclusiveMinimum !== undefined && !(n > schema.exclusiveMinimum)) {
    return { type: 'greater_than', loc, input: raw, ctx: { gt: schema.exclusiveMinimum }, messageKey: 'validation.greater_than' };
  }
  if (schema.minimum !== undefined && n < schema.minimum) {
    return { type: 'greater_than_equal', loc, input: raw, ctx: { ge: schema.minimum }, messageKey: 'validation.greater_than_equal' };
  }
  if (schema.exclusiveMaximum !== undefined && !(n < schema.exclusiveMaximum)) {
    return { type: 'less_than', loc, input: raw, ctx: { lt: schema.exclusiveMaximum }, messageKey: 'validation.less_than' };
  }
  if (schema.maximum !== undefined && n > schema.maximum) {
    return { type: 'less_than_equal', loc, input: raw, ctx: { le: schema.maximum }, messageKey: 'validation.less_than_equal' };
  }
  return null;
}

/** Converts and checks one present value; already-converted values (a second pass) are accepted as is. */
function checkValue(
  loc: ValidationIssue['loc'],
  raw: unknown,
  type: ReturnType<typeof scalarType>,
  schema: ParameterSchema,
): { value: Scalar } | { issue: ValidationIssue } {
  if (type === 'boolean') {
    const b = typeof raw === 'boolean' ? raw : typeof raw === 'string' ? parseBoolean(raw) : null;
    return b === null ? { issue: { type: 'bool_parsing', loc, input: raw, messageKey: 'validation.bool_parsing' } } : { value: b };
  }
  if (type === 'integer' || type === 'number') {
    const parse = type === 'integer' ? parseInteger : parseNumber;
    const n = typeof raw === 'number' ? raw : typeof raw === 'string' ? parse(raw) : null;
    if (n === null || (type === 'integer' && !Number.isInteger(n))) {
      const t = type === 'integer' ? 'int_parsing' : 'float_parsing';
      return { issue: { type: t, loc, input: raw, messageKey: `validation.${t}` } };
    }
    const issue = checkRange(loc, raw, n, schema);
    return issue ? { issue } : { value: n };
  }
  if (typeof raw !== 'string') return { issue: { type: 'string_type', loc, input: raw, messageKey: 'validation.string_type' } };
  const issue = checkString(loc, raw, schema);
  return issue ? { issue } : { value: raw };
}

/**
 * Compiles the validator of one request part from its object schema. Issues come in the schema's
 * property order, like FastAPI's (declaration order).
 *
 * @example
 * const validate = compileParameterValidator(Type.Object({ limit: Type.Integer({ minimum: 1 }) }), 'query');
 * validate({ limit: '0' }).issues[0].type // 'greater_than_equal'
 */
export function compileParameterValidator(schema: unknown, location: ParameterLocation): ParameterValidator {
  const object = (schema ?? {}) as ObjectSchema;
  if (object.type !== undefined && object.type !== 'object') {
    throw new UnsupportedParameterSchemaError(`${location} parameters must be described by an object schema`);
  }
  const required = new Set(object.required ?? []);
  const params = Object.entries(object.properties ?? {}).map(([name, s]) => ({
    name,
    schema: s,
    type: scalarType(name, s),
    // A parameter with a default is optional, as in FastAPI, even if the schema also lists it as required.
    required: required.has(name) && s.default === undefined,
    loc: [location, name] as Array<string | number>,
    // Header names arrive lower-cased; `loc` keeps the declared name.
    key: location === 'header' ? name.toLowerCase() : name,
  }));
  return (raw) => {
    const source = (raw ?? {}) as Record<string, unknown>;
    const value: Record<string, Scalar> = {};
    const issues: ValidationIssue[] = [];
    for (const p of params) {
      const received = lastValue(source[p.key]);
      if (received === undefined || received === null) {
        if (p.required) issues.push({ type: 'missing', loc: p.loc, input: null, messageKey: 'validation.missing' });
        else if (p.schema.default !== undefined) value[p.name] = p.schema.default as Scalar;
        continue;
      }
      const result = checkValue(p.loc, received, p.type, p.schema);
      if ('issue' in result) issues.push(result.issue);
      else value[p.name] = result.value;
    }
    return { value, issues };
  };
}
