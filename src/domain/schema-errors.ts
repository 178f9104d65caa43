/**
 * Validates provisioning input (seed files, NDJSON lines) against a JSON Schema and explains the first
 * problem the way an operator reads it: `organizations[0].orders[12].order_state: must be one of ...`.
 */
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import type { TSchema } from '@sinclair/typebox';

export interface InputProblem {
  /** e.g. `organizations[0].orders[12].order_state` ('' for the document itself). */
  path: string;
  message: string;
}

export function formatProblem(problem: InputProblem): string {
  return problem.path ? `${problem.path}: ${problem.message}` : problem.message;
}

export function joinPath(base: string, segment: string | number): string {
  if (typeof segment === 'number') return `${base}[${segment}]`;
  const name = /^[A-Za-z_][A-Za-z0-9_]*$/.test(segment) ? segment : JSON.stringify(segment);
  if (!base) return /^[A-Za-z_]/.test(name) ? name : `[${name}]`;
  return name.startsWith('"') ? `${base}[${name}]` : `${base}.${name}`;
}

function pointerToPath(pointer: string, prefix: string): string {
  let path = prefix;
  for (const raw of pointer.split('/').slice(1)) {
    const segment = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    path = joinPath(path, /^\d+$/.test(segment) ? Number(segment) : segment);
  }
  return path;
}

const TYPE_NAMES: Record<string, string> = {
  string: 'a string',
  number: 'a number',
  integer: 'an integer',
  boolean: 'true or false',
  array: 'an array',
  object: 'an object',
  null: 'null',
};

function describe(error: ErrorObject): string {
  const p = error.params as Record<string, unknown>;
  const description = (error.parentSchema as { description?: string } | undefined)?.description;
  switch (error.keyword) {
    case 'required':
      return 'is required';
    case 'additionalProperties':
      return 'is not an allowed field';
    case 'enum':
      return `must be one of ${(p.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')}`;
    case 'type': {
      const types = String(p.type).split(',').map((t) => TYPE_NAMES[t] ?? t);
      return `must be ${types.join(' or ')}`;
    }
    case 'pattern':
      return description ? `must be ${description}` : `must match the pattern ${String(p.pattern)}`;
    case 'minLength':
      return p.limit === 1 ? 'must not be empty' : `must be at least ${String(p.limit)} characters long`;
    case 'maxLength':
      return `must be at most ${String(p.limit)} characters long`;
    case 'minimum':
      return `must be at least ${String(p.limit)}`;
    case 'maximum':
      return `must be at most ${String(p.limit)}`;
    case 'minItems':
      return `must have at least ${String(p.limit)} item${p.limit === 1 ? '' : 's'}`;
    case 'maxItems':
      return `must have at most ${String(p.limit)} items`;
    case 'uniqueItems':
      return 'must not repeat an item';
    default:
      return error.message ?? 'is invalid';
  }
}

function pathOf(error: ErrorObject, prefix: string): string {
  const base = pointerToPath(error.instancePath, prefix);
  const p = error.params as Record<string, unknown>;
  if (error.keyword === 'required') return joinPath(base, String(p.missingProperty));
  if (error.keyword === 'additionalProperties') return joinPath(base, String(p.additionalProperty));
  return base;
}

/** Among the errors of a failed `X or null` union, the one about X says what is wrong. */
function mostSpecific(errors: ErrorObject[]): ErrorObject {
  const useful = errors.filter((e) => e.keyword !== 'anyOf' && !(e.keyword === 'type' && e.params.type === 'null'));
  const pool = useful.length > 0 ? useful : errors;
  // The deepest path is the most precise.
  return pool.reduce((best, e) => (e.instancePath.length > best.instancePath.length ? e : best));
}

export interface InputValidator<T> {
  /** The problem with value, or null when value is valid (value is then typed as T). */
  check(value: unknown, pathPrefix?: string): InputProblem | null;
  readonly type?: T;
}

export function compileInputValidator<T>(schema: TSchema): InputValidator<T> {
  const ajv = new Ajv({ allErrors: false, verbose: true, strict: false });
  const validate: ValidateFunction = ajv.compile(schema);
  return {
    check(value: unknown, pathPrefix = ''): InputProblem | null {
      if (validate(value)) return null;
      const error = mostSpecific(validate.errors ?? []);
      return { path: pathOf(error, pathPrefix), message: describe(error) };
    },
  };
}
