/**
 * One failing parameter, in the shape of a pydantic v2 error before its message is rendered in the
 * caller's language. `type`, `loc`, `input` and `ctx` are data and never translated.
 */
import type { MessageKey } from '../../i18n/catalogue.js';
import type { MessageVars } from '../../i18n/translate.js';

/** Where a parameter comes from, named as FastAPI names it in `loc`. */
export type ParameterLocation = 'path' | 'query' | 'header' | 'body';

export interface ValidationIssue {
  /** pydantic error type: `missing`, `int_parsing`, `string_too_short`, ... */
  type: string;
  loc: Array<string | number>;
  /** The raw value received (a string for parameters), null when missing. */
  input: unknown;
  ctx?: Record<string, string | number | boolean>;
  messageKey: MessageKey;
  /** Placeholder values of the message; defaults to `ctx`. */
  vars?: MessageVars;
}
