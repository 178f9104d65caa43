/** Request validation with FastAPI-compatible 422 bodies. */
export { collectParameterIssues, validationIssuesOf } from './collect-issues.js';
export { compileParameterValidator, parseBoolean, parseInteger, UnsupportedParameterSchemaError } from './parameter-validator.js';
export { invalidParameter, RequestValidationError } from './request-validation-error.js';
export { renderValidationIssues, type ValidationErrorBody } from './render.js';
export type { ParameterLocation, ValidationIssue } from './validation-issue.js';
export { buildValidatorFactory } from './validator-factory.js';
