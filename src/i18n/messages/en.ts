/**
 * English: the reference catalogue. Every other language must have exactly these keys (checked by the
 * `Catalogue` type). Keys are grouped by area: `validation.*` (422 `msg`), `errors.*` (`detail` of other
 * errors), `oauth.*` (token endpoint `error_description`), `web.*` (web application texts).
 * Placeholders are `{name}`; data values (states, field names, names of things) are passed in, never
 * translated.
 */
export const en = {
  'validation.missing': 'Field required',
  'validation.string_too_short': 'String should have at least {min_length} characters',
  'validation.string_too_long': 'String should have at most {max_length} characters',
  'validation.string_type': 'Input should be a valid string',
  'validation.bool_parsing': 'Input should be a valid boolean, unable to interpret input',
  'validation.int_parsing': 'Input should be a valid integer, unable to parse string as an integer',
  'validation.float_parsing': 'Input should be a valid number, unable to parse string as a number',
  'validation.greater_than_equal': 'Input should be greater than or equal to {ge}',
  'validation.less_than_equal': 'Input should be less than or equal to {le}',
  'validation.greater_than': 'Input should be greater than {gt}',
  'validation.less_than': 'Input should be less than {lt}',
  'validation.enum': 'Input should be {expected}',
  'validation.string_pattern_mismatch': "String should match pattern '{pattern}'",
  'validation.value_error': 'Value error, {reason}',
  'validation.invalid_page_token': 'Invalid page token',

  'errors.bad_request': 'Bad Request',
  'errors.not_authenticated': 'Not authenticated',
  'errors.forbidden': 'Forbidden',
  'errors.not_found': 'Not Found',
  'errors.method_not_allowed': 'Method Not Allowed',
  'errors.not_acceptable': 'Not Acceptable',
  'errors.payload_too_large': 'Request Entity Too Large',
  'errors.unsupported_media_type': 'Unsupported Media Type',
  'errors.too_many_requests': 'Too Many Requests',
  'errors.internal': 'Internal Server Error',
  'errors.service_unavailable': 'Service Unavailable',
  'errors.invalid_token': 'Invalid or expired access token',
  'errors.insufficient_scope': 'The access token does not grant the scope {scope}',
  'errors.project_not_found': 'Project not found',
  'errors.organization_not_found': 'Organization not found',
  'errors.invalid_signature': 'Invalid or expired signature',

  'oauth.unsupported_grant_type': 'Only the client_credentials grant type is supported',
  'oauth.invalid_client': 'Client authentication failed',
  'oauth.invalid_request': 'The request is missing a required parameter or is otherwise malformed',
  'oauth.invalid_scope': 'The requested scope is invalid or exceeds the scope granted to the client',

  'web.language_name': 'English',
} as const;

/** Every message key of the service. */
export type MessageKey = keyof typeof en;

/** A language's catalogue: every key, each a string. */
export type Catalogue = { readonly [K in MessageKey]: string };
