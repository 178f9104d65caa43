/**
 * Text that cannot be stored (NUL, unpaired surrogates: src/http/validation/unstorable-text.ts) in any
 * field a web page receives (path, query, form or JSON body) is refused once for every route, after the
 * route's own guards (session, CSRF, reviewer) and before its handler: a route that has a form shows it
 * again with the error on the field (its `refusedText` option); any other route answers 422, as JSON for
 * a JSON request (the 422 list naming the field) and otherwise as a page naming the field.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest, RouteOptions } from 'fastify';
import { renderValidationIssues } from '../http/validation/render.js';
import { unstorableTextIssues, withoutUnstorable } from '../http/validation/unstorable-text.js';
import type { ValidationIssue } from '../http/validation/validation-issue.js';
import { sendPage } from './respond.js';
import { messagePage } from './views/message-page.js';

/** The first refused field: its name as the page knows it, and the character refused (`U+0000`). */
export interface RefusedText {
  field: string;
  character: string;
}

/**
 * A route's own answer to refused text: its form again, with the error on `refusal.field` (422); null when
 * the field is not one of its form's (a path parameter), which gets the common answer.
 */
export type RefusedTextAnswer = (req: FastifyRequest, reply: FastifyReply, refusal: RefusedText) => Promise<FastifyReply | null>;

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Shows the route's form again with the refused field's error (src/web/refused-text.ts). */
    refusedText?: RefusedTextAnswer;
  }
}

const isJsonRequest = (req: FastifyRequest) => /^application\/json\b/i.test(String(req.headers['content-type'] ?? ''));

/** Every refused string of the request, path first, then query, then body. */
export function refusedTextIssues(req: FastifyRequest): ValidationIssue[] {
  return [...unstorableTextIssues(req.params, ['path']), ...unstorableTextIssues(req.query, ['query']), ...unstorableTextIssues(req.body, ['body'])];
}

async function answer(req: FastifyRequest, reply: FastifyReply, issues: ValidationIssue[]): Promise<FastifyReply> {
  const first = issues[0]!;
  const refusal = { field: String(first.loc[1] ?? first.loc[0]), character: String(first.vars?.character ?? '') };
  const own = await req.routeOptions.config.refusedText?.(req, reply, refusal);
  if (own) return own;
  if (isJsonRequest(req)) return reply.code(422).type('application/json; charset=utf-8').send(renderValidationIssues(issues, req.web.lang));
  const ctx = req.web;
  return sendPage(reply, messagePage(ctx, ctx.t('web.error.refused_text_title'), ctx.t('web.error.refused_text', { field: withoutUnstorable(refusal.field), character: refusal.character })), 422);
}

/** Wraps the handler of every route registered after it in `app` (and its children). */
export function refuseUnstorableText(app: FastifyInstance): void {
  app.addHook('onRoute', (route: RouteOptions) => {
    const handler = route.handler;
    route.handler = async function (this: FastifyInstance, req: FastifyRequest, reply: FastifyReply) {
      const issues = refusedTextIssues(req);
      if (issues.length > 0) return answer(req, reply, issues);
      return handler.call(this, req, reply);
    };
  });
}
