/**
 * Fastify's validator factory for certdesk (`schemaController.compilersFactory.buildValidator`):
 * path, query and header parameters go through the pydantic-compatible parameter validator, request
 * bodies through Ajv with `allErrors` so a 422 lists every failing field. Both refuse text that cannot be
 * stored (NUL, unpaired surrogates: unstorable-text.ts) in any string, naming the field.
 */
import { Ajv, type ErrorObject, type Options as AjvOptions, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import type { FastifyRouteSchemaDef, FastifySchema } from 'fastify/types/schema.js';
import { ajvErrorsToIssues } from './ajv-issues.js';
import { unstorableTextIssues } from './unstorable-text.js';
import { compileParameterValidator, type ParameterValidator } from './parameter-validator.js';
import { RequestValidationError } from './request-validation-error.js';
import type { ParameterLocation } from './validation-issue.js';

/** Fastify's request part name → FastAPI's `loc` name. */
export const PART_LOCATIONS = { params: 'path', querystring: 'query', headers: 'header' } as const satisfies Record<string, ParameterLocation>;
export type ParameterPart = keyof typeof PART_LOCATIONS;

/**
 * Ajv options for JSON bodies: every error at once, scalar coercion like pydantic's lax mode (`"3"` is
 * accepted for an integer; a lone value is not wrapped into a list), and unknown fields reported (schemas
 * say `additionalProperties: false`; pydantic's `extra_forbidden`) rather than silently dropped.
 */
export const BODY_AJV_OPTIONS: AjvOptions = {
  coerceTypes: true,
  useDefaults: true,
  removeAdditional: false,
  allErrors: true,
  strict: false,
};

const compiledParameters = new WeakMap<object, ParameterValidator>();

/** The (cached) parameter validator of a request part's schema. */
export function parameterValidatorFor(schema: unknown, part: ParameterPart): ParameterValidator {
  if (schema === null || typeof schema !== 'object') return compileParameterValidator(undefined, PART_LOCATIONS[part]);
  let validator = compiledParameters.get(schema);
  if (!validator) {
    validator = compileParameterValidator(schema, PART_LOCATIONS[part]);
    compiledParameters.set(schema, validator);
  }
  return validator;
}

type FastifyValidator = ((data: unknown) => { value: unknown } | { error: Error } | boolean) & { errors?: ErrorObject[] | null };

/**
 * A body validator: Ajv's, and the refusal of text that cannot be stored (unstorable-text.ts) in any
 * string of the body, so every route refuses it with a 422 naming the field. Ajv's own issues are listed
 * beside those (one per field).
 */
function bodyValidator(validate: ValidateFunction): FastifyValidator {
  const validator: FastifyValidator = (data) => {
    const refused = unstorableTextIssues(data, ['body']);
    const valid = validate(data);
    validator.errors = validate.errors;
    if (refused.length === 0) return valid;
    const at = new Set(refused.map((issue) => JSON.stringify(issue.loc)));
    const others = valid ? [] : ajvErrorsToIssues(validate.errors ?? [], data).filter((issue) => !at.has(JSON.stringify(issue.loc)));
    return { error: new RequestValidationError([...refused, ...others]) };
  };
  return validator;
}

/**
 * Builds the compiler Fastify calls for every route schema part.
 *
 * @example
 * Fastify({ schemaController: { compilersFactory: { buildValidator: buildValidatorFactory } } })
 */
export function buildValidatorFactory(externalSchemas: unknown, ajvServerOptions?: { customOptions?: AjvOptions }) {
  let ajv: Ajv | null = null;
  // Ajv is built on first use: most routes take no body.
  const bodyAjv = (): Ajv => {
    if (ajv) return ajv;
    ajv = new Ajv({ ...BODY_AJV_OPTIONS, ...(ajvServerOptions?.customOptions ?? {}) });
    addFormats.default(ajv);
    // OpenAPI's marker for file parts of multipart bodies (their value is checked by the route).
    ajv.addFormat('binary', true);
    for (const schema of Object.values((externalSchemas ?? {}) as Record<string, object>)) {
      const id = (schema as { $id?: string }).$id;
      if (!id || !ajv.getSchema(id)) ajv.addSchema(schema, id);
    }
    return ajv;
  };
  return (routeSchema: FastifyRouteSchemaDef<FastifySchema>): FastifyValidator => {
    const part = routeSchema.httpPart;
    if (part === 'params' || part === 'querystring' || part === 'headers') {
      const validate = parameterValidatorFor(routeSchema.schema, part);
      return (data) => {
        const { value, issues } = validate(data);
        if (issues.length > 0) return { error: new RequestValidationError(issues) };
        // Query and headers keep what was not declared (headers are merged by Fastify anyway).
        return { value: part === 'headers' ? value : { ...(data as object | null), ...value } };
      };
    }
    return bodyValidator(bodyAjv().compile(routeSchema.schema as object));
  };
}
