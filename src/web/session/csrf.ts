/**
 * CSRF protection. Signed-in forms carry the session's token (synchronizer token pattern); the sign-in
 * form, which has no session yet, carries a random token that must match a cookie (double submit), so a
 * foreign site cannot sign a victim into the attacker's account either.
 */
import { timingSafeEqual } from 'node:crypto';
import type {} from '@fastify/cookie';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { cookieOptions, randomToken } from './web-session.js';

/** Name of the hidden form field that carries the token. */
export const CSRF_FIELD = '_csrf';
export const SIGN_IN_CSRF_COOKIE = 'certdesk_signin_csrf';

/** Constant-time comparison; false for anything missing. */
export function tokensMatch(expected: string | undefined | null, presented: unknown): boolean {
  if (!expected || typeof presented !== 'string' || presented === '') return false;
  const a = Buffer.from(expected, 'utf8');
  const b = Buffer.from(presented, 'utf8');
  return a.length === b.length && timingSafeEqual(a, b);
}

/** The token of a posted form body, if any. */
export function presentedToken(body: unknown): unknown {
  return body && typeof body === 'object' ? (body as Record<string, unknown>)[CSRF_FIELD] : undefined;
}

/** The sign-in form's token: reuses the cookie's when present, else issues one (cookie lives one hour). */
export function signInToken(req: FastifyRequest, reply: FastifyReply): string {
  const existing = req.cookies[SIGN_IN_CSRF_COOKIE];
  if (existing && /^[A-Za-z0-9_-]{43}$/.test(existing)) return existing;
  const token = randomToken();
  reply.setCookie(SIGN_IN_CSRF_COOKIE, token, cookieOptions(req, 3600));
  return token;
}
