/** Renders validation issues as FastAPI's HTTPValidationError body, messages in the caller's language. */
import type { Language } from '../../i18n/catalogue.js';
import { translate } from '../../i18n/translate.js';
import { boundedInput, boundedText } from './bounded-input.js';
import type { ValidationIssue } from './validation-issue.js';

export interface ValidationErrorBody {
  type: string;
  loc: Array<string | number>;
  msg: string;
  input: unknown;
  ctx?: Record<string, string | number | boolean>;
}

/** `{"detail": [{type, loc, msg, input, ctx?}]}`, keys in pydantic's order, no `url`; `input` bounded (bounded-input.ts). */
export function renderValidationIssues(issues: readonly ValidationIssue[], lang: Language): { detail: ValidationErrorBody[] } {
  return {
    detail: issues.map((issue) => {
      const item: ValidationErrorBody = {
        type: issue.type,
        loc: issue.loc.map((part) => (typeof part === 'string' ? boundedText(part) : part)),
        msg: translate(lang, issue.messageKey, issue.vars ?? issue.ctx ?? {}),
        input: issue.input === undefined ? null : boundedInput(issue.input),
      };
      if (issue.ctx) item.ctx = { ...issue.ctx };
      return item;
    }),
  };
}
