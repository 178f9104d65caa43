/**
 * Pre-handlers of signed-in pages: a live session is required (else the sign-in page), and every POST
 * carries the session's CSRF token (else 403).
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { SessionWithUser } from '../domain/sessions/index.js';
import { presentedToken, tokensMatch } from './session/csrf.js';
import { SESSION_COOKIE } from './session/web-session.js';
import { redirectToSignIn, sendCsrfRefusal } from './respond.js';

export async function requireSession(req: FastifyRequest, reply: FastifyReply): Promise<void> {
  if (!req.web.session) {
    // A cookie that no longer names a live session means it expired (or was signed out elsewhere).
    await redirectToSignIn(req, reply, Boolean(req.cookies[SESSION_COOKIE]));
  }
}

export async function requireCsrf(req: FastifyRequest, reply: FastifyReply): Promise<void> {
  const session = req.web.session;
  if (!session || !tokensMatch(session.csrfToken, presentedToken(req.body))) await sendCsrfRefusal(req.web, reply);
}

/** The session of a request that passed requireSession. */
export function sessionOf(req: FastifyRequest): SessionWithUser {
  const session = req.web.session;
  if (!session) throw new Error('route registered without requireSession');
  return session;
}
