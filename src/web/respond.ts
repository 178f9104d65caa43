/** Sending pages and the common refusals (403 CSRF, 404, sign-in redirect) the same way everywhere. */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { SafeHtml } from './html.js';
import type { WebContext } from './web-context.js';
import { messagePage } from './views/message-page.js';

export function sendPage(reply: FastifyReply, body: SafeHtml, status = 200): FastifyReply {
  return reply.code(status).type('text/html; charset=utf-8').send(body.toString());
}

export function sendNotFound(ctx: WebContext, reply: FastifyReply): FastifyReply {
  return sendPage(reply, messagePage(ctx, ctx.t('web.error.not_found_title'), ctx.t('web.error.not_found')), 404);
}

export function sendCsrfRefusal(ctx: WebContext, reply: FastifyReply): FastifyReply {
  return sendPage(reply, messagePage(ctx, ctx.t('web.error.csrf_title'), ctx.t('web.error.csrf')), 403);
}

/** A local path to return to after signing in, or null for anything that could leave the site. */
export function safeNext(value: unknown): string | null {
  if (typeof value !== 'string' || value.length > 2000) return null;
  return /^\/(?![/\\])[^\s\\]*$/.test(value) ? value : null;
}

/** 303 to the sign-in page, remembering where the user was going (GET only). */
export function redirectToSignIn(req: FastifyRequest, reply: FastifyReply, expired = false): FastifyReply {
  const params = new URLSearchParams();
  if (req.method === 'GET' && safeNext(req.url) && req.url !== '/') params.set('next', req.url);
  if (expired) params.set('expired', '1');
  const query = params.toString();
  return reply.redirect(query ? `/sign-in?${query}` : '/sign-in', 303);
}
