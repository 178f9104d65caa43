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

/** One issue per Ajv error, `loc` starting with `body`. */
export function ajvErrorsToIssues(errors: readonly ErrorObject[], body: unknown): ValidationIssue[] {
  return errors.map((e): ValidationIssue => {
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
      default:
        return { type: 'value_error', loc: ['body', ...path], input, ctx: { reason: e.message ?? e.keyword }, messageKey: 'validation.value_error' };
    }
  });
}
