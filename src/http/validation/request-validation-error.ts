/**
 * The error behind every 422: a list of validation issues, rendered by the error handler as FastAPI's
 * `HTTPValidationError` in the caller's language. Route handlers throw it too, for checks the schema
 * cannot express (e.g. a page token that does not verify).
 */
import type { MessageKey } from '../../i18n/catalogue.js';
import type { ParameterLocation, ValidationIssue } from './validation-issue.js';

export class RequestValidationError extends Error {
  override name = 'RequestValidationError';
  readonly statusCode = 422;
  readonly code = 'CERTDESK_VALIDATION';
  readonly issues: ValidationIssue[];

  constructor(issues: ValidationIssue[]) {
    super(`request validation failed: ${issues.map((i) => `${i.loc.join('.')} (${i.type})`).join(', ')}`);
    this.issues = issues;
  }
}

/**
 * A 422 for one parameter whose value has the right type but is not acceptable (pydantic `value_error`).
 *
 * @example
 * throw invalidParameter('query', 'page_token', raw, 'validation.invalid_page_token');
 */
export function invalidParameter(location: ParameterLocation, name: string, input: unknown, messageKey: MessageKey): RequestValidationError {
  return new RequestValidationError([{ type: 'value_error', loc: [location, name], input, messageKey }]);
}
