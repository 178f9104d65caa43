/**
 * The JSON body parser of every route (API and web alike): Fastify's own (prototype poisoning refused),
 * preceded by a bound on nesting. A body nested deeper than MAX_JSON_DEPTH is refused with 400 before it
 * is parsed, so nothing after the parser (validation, the 422's echo, the idempotency fingerprint) ever
 * walks a structure deep enough to exhaust the stack. No request of the interface comes near the bound:
 * the deepest (a review edit's polygon points) is 8 levels.
 */
import type { FastifyInstance } from 'fastify';
import { ApiError } from '../../domain/errors.js';

/** Deepest nesting of arrays and objects a JSON body may have. */
export const MAX_JSON_DEPTH = 64;

/** Whether `text` opens more than `max` arrays or objects inside one another (strings are skipped). Linear, no recursion. */
export function jsonDeeperThan(text: string, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++; // backslash: the next character is escaped
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > max) return true;
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return false;
}

/** Replaces the root instance's JSON parser (children inherit it). */
export function installJsonBodyParser(app: FastifyInstance): void {
  const parse = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    if (jsonDeeperThan(body as string, MAX_JSON_DEPTH)) {
      done(new ApiError(400, 'errors.json_too_deep', { vars: { max: MAX_JSON_DEPTH } }), undefined);
      return;
    }
    parse(request, body as string, done);
  });
}
