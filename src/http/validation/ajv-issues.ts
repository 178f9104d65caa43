/**
 * Maps Ajv errors (request bodies, the only part Ajv validates) to pydantic-style issues. Parameters do
 * not go through here: see parameter-validator.ts.
 */
import type { ErrorObject } from 'ajv';
import type { ValidationIssue } from './validation-issue.js';

function pathSegments(instancePath: string): Array<string | number> {
  if (instancePath === '') return [];
  return instancePath
    .slice(1)
    .split('/')
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'))
    .map((s) => (/^\d+$/.test(s) ? Number(s) : s));
}

function valueAt(root: unknown, path: Array<string | number>): unknown {
  let cur: unknown = root;
  for (const seg of path) {
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = (cur as Record<string | number, unknown>)[seg];
  }
  return cur;
}

/** pydantic's type errors by JSON Schema type (a union such as `string,null` is named by its first member). */
function typeIssue(schemaType: string, loc: Array<string | number>, input: unknown): ValidationIssue {
  switch (schemaType.split(',')[0]) {
    case 'string':
      return { type: 'string_type', loc, input, messageKey: 'validation.string_type' };
    case 'integer':
      return { type: 'int_type', loc, input, messageKey: 'validation.int_type' };
    case 'number':
      return { type: 'float_type', loc, input, messageKey: 'validation.float_type' };
    case 'boolean':
      return { type: 'bool_type', loc, input, messageKey: 'validation.bool_type' };
    case 'array':
      return { type: 'list_type', loc, input, messageKey: 'validation.list_type' };
    default:
      return { type: 'model_type', loc, input, messageKey: 'validation.model_type' };
  }
}

/**
 * Ajv reports a failing `anyOf` (e.g. `string | null`) as one error per branch plus the anyOf itself;
 * pydantic names the field once. Keep the first branch's error and drop the rest.
 */
function collapseUnions(errors: readonly ErrorObject[]): ErrorObject[] {
  const anyOfPaths = new Set(errors.filter((e) => e.keyword === 'anyOf').map((e) => e.instancePath));
  const inBranch = (e: ErrorObject) => anyOfPaths.has(e.instancePath) && /\/anyOf\/\d+\//.test(e.schemaPath);
  // Per field, the most telling branch error: not "should be null" when another branch says more.
  const isNullType = (e: ErrorObject) => e.keyword === 'type' && (e.params as { type?: unknown }).type === 'null';
  const chosen = new Map<string, ErrorObject>();
  for (const e of errors) {
    if (!inBranch(e)) continue;
    const current = chosen.get(e.instancePath);
    if (!current || (isNullType(current) && !isNullType(e))) chosen.set(e.instancePath, e);
  }
  const out: ErrorObject[] = [];
  for (const e of errors) {
    if (e.keyword === 'anyOf') continue;
    if (inBranch(e) && chosen.get(e.instancePath) !== e) continue;
    out.push(e);
  }
  return out;
}

/** One issue per Ajv error, `loc` starting with `body`. */
export function ajvErrorsToIssues(errors: readonly ErrorObject[], body: unknown): ValidationIssue[] {
  return collapseUnions(errors).map((e): ValidationIssue => {
    const path = pathSegments(e.instancePath);
    const input = valueAt(body, path) ?? null;
    const p = e.params as Record<string, unknown>;
    switch (e.keyword) {
      case 'required':
        return { type: 'missing', loc: ['body', ...path, String(p.missingProperty)], input: null, messageKey: 'validation.missing' };
      case 'minLength':
        return { type: 'string_too_short', loc: ['body', ...path], input, ctx: { min_length: Number(p.limit) }, messageKey: 'validation.string_too_short' };
      case 'maxLength':
        return { type: 'string_too_long', loc: ['body', ...path], input, ctx: { max_length: Number(p.limit) }, messageKey: 'validation.string_too_long' };
      case 'minimum':
        return { type: 'greater_than_equal', loc: ['body', ...path], input, ctx: { ge: Number(p.limit) }, messageKey: 'validation.greater_than_equal' };
      case 'maximum':
        return { type: 'less_than_equal', loc: ['body', ...path], input, ctx: { le: Number(p.limit) }, messageKey: 'validation.less_than_equal' };
      case 'additionalProperties': {
        const name = String(p.additionalProperty);
        return { type: 'extra_forbidden', loc: ['body', ...path, name], input: valueAt(body, [...path, name]) ?? null, messageKey: 'validation.extra_forbidden' };
      }
      case 'type':
        return typeIssue(String(p.type), ['body', ...path], input);
      case 'pattern':
        return { type: 'string_pattern_mismatch', loc: ['body', ...path], input, ctx: { pattern: String(p.pattern) }, messageKey: 'validation.string_pattern_mismatch' };
      case 'format':
        if (p.format === 'uuid') return { type: 'uuid_parsing', loc: ['body', ...path], input, messageKey: 'validation.uuid_parsing' };
        return { type: 'value_error', loc: ['body', ...path], input, ctx: { reason: `not a valid ${String(p.format)}` }, messageKey: 'validation.value_error' };
      case 'enum': {
        const expected = ((p.allowedValues as unknown[]) ?? []).map((v) => `'${String(v)}'`).join(', ');
        return { type: 'enum', loc: ['body', ...path], input, ctx: { expected }, messageKey: 'validation.enum' };
      }
      case 'minItems':
        return { type: 'too_short', loc: ['body', ...path], input, ctx: { min_length: Number(p.limit) }, messageKey: 'validation.too_short' };
      case 'maxItems':
        return { type: 'too_long', loc: ['body', ...path], input, ctx: { max_length: Number(p.limit) }, messageKey: 'validation.too_long' };
      default:
        return { type: 'value_error', loc: ['body', ...path], input, ctx: { reason: e.message ?? e.keyword }, messageKey: 'validation.value_error' };
    }
  });
}
