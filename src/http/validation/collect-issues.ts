/**
 * FastAPI lists every failing parameter, path first, then query, then header; Fastify stops at the
 * first failing part. When one part fails, this re-checks all of them against the route's schemas
 * (the validators are pure, so the values Fastify holds are still the raw ones, or already converted
 * ones that validate again unchanged).
 */
import type { ErrorObject } from 'ajv';
import type { FastifyRequest } from 'fastify';
import { ajvErrorsToIssues } from './ajv-issues.js';
import { RequestValidationError } from './request-validation-error.js';
import type { ValidationIssue } from './validation-issue.js';
import { parameterValidatorFor, type ParameterPart } from './validator-factory.js';

const PART_ORDER: Array<{ part: ParameterPart; read: (r: FastifyRequest) => unknown }> = [
  { part: 'params', read: (r) => r.params },
  { part: 'querystring', read: (r) => r.query },
  { part: 'headers', read: (r) => r.headers },
];

/** Every parameter issue of the request, in FastAPI's order. */
export function collectParameterIssues(request: FastifyRequest): ValidationIssue[] {
  const schema = (request.routeOptions.schema ?? {}) as Record<string, unknown>;
  const issues: ValidationIssue[] = [];
  for (const { part, read } of PART_ORDER) {
    const partSchema = part === 'querystring' ? (schema.querystring ?? schema.query) : schema[part];
    if (partSchema === undefined) continue;
    issues.push(...parameterValidatorFor(partSchema, part)(read(request)).issues);
  }
  return issues;
}

/** Ajv reports `required` before the properties; pydantic lists fields in declaration order. */
function inDeclarationOrder(issues: ValidationIssue[], fields: string[]): ValidationIssue[] {
  const rank = (issue: ValidationIssue) => {
    const i = fields.indexOf(String(issue.loc[1]));
    return i === -1 ? fields.length : i;
  };
  return issues.map((issue, index) => ({ issue, index })).sort((a, b) => rank(a.issue) - rank(b.issue) || a.index - b.index).map((x) => x.issue);
}

interface BodySchema {
  properties?: object;
  /** Per-content-type schemas (a route taking JSON and multipart bodies). */
  content?: Record<string, { schema?: { properties?: object } }>;
}

/** The body schema's properties for the request's content type. */
function bodyProperties(schema: BodySchema | undefined, request: FastifyRequest): object | undefined {
  if (!schema) return undefined;
  if (!schema.content) return schema.properties;
  const type = String(request.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
  return schema.content[type]?.schema?.properties;
}

interface FastifyValidationErrorLike {
  validation?: readonly ErrorObject[];
  validationContext?: string;
}

/**
 * The issues a 422 must list for an error, or null when the error is not a validation error.
 * Fastify validation failures are completed with the other parts' issues.
 */
export function validationIssuesOf(error: unknown, request: FastifyRequest): ValidationIssue[] | null {
  const e = error as FastifyValidationErrorLike & Partial<RequestValidationError>;
  const context = e.validationContext;
  if (error instanceof RequestValidationError && context === undefined) return error.issues; // thrown by a handler
  if (context === 'params' || context === 'querystring' || context === 'headers') {
    const issues = collectParameterIssues(request);
    // Never an empty 422: fall back on what the failing validator said.
    return issues.length > 0 ? issues : error instanceof RequestValidationError ? error.issues : [];
  }
  if (context === 'body') {
    const bodyIssues = error instanceof RequestValidationError ? error.issues : ajvErrorsToIssues(e.validation ?? [], request.body);
    const bodySchema = (request.routeOptions.schema as { body?: BodySchema } | undefined)?.body;
    return [...collectParameterIssues(request), ...inDeclarationOrder(bodyIssues, Object.keys(bodyProperties(bodySchema, request) ?? {}))];
  }
  return null;
}
