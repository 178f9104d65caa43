/**
 * Web session lifecycle: a random 256-bit id in an HttpOnly cookie, its SHA-256 hash in the database,
 * a per-session CSRF token, and an absolute lifetime (no sliding renewal, so a stolen cookie dies on time).
 */
import { createHash, randomBytes } from 'node:crypto';
import type {} from '@fastify/cookie';
import type { FastifyReply, FastifyRequest } from 'fastify';
import {
  deleteExpiredSessions,
  deleteSession,
  findLiveSession,
  insertSession,
  type SessionWithUser,
} from '../../domain/sessions/index.js';
import type { Executor } from '../../storage/database.js';

export const SESSION_COOKIE = 'certdesk_session';
/** Twelve hours: a working day, after which the user signs in again. */
export const SESSION_TTL_MS = 12 * 60 * 60 * 1000;

export function hashSessionId(id: string): string {
  return createHash('sha256').update(id, 'utf8').digest('hex');
}

export function randomToken(): string {
  return randomBytes(32).toString('base64url');
}

/** Cookie attributes shared by every cookie the web application sets. */
export function cookieOptions(req: FastifyRequest, maxAgeSeconds?: number) {
  return {
    path: '/',
    httpOnly: true,
    sameSite: 'lax' as const,
    // request.protocol honours X-Forwarded-Proto only when trustProxy is configured.
    secure: req.protocol === 'https',
    ...(maxAgeSeconds === undefined ? {} : { maxAge: maxAgeSeconds }),
  };
}

/** Creates a session for the user and sets its cookie. Old expired sessions are swept on the way. */
export async function startSession(db: Executor, req: FastifyRequest, reply: FastifyReply, userId: string, now = new Date()): Promise<void> {
  const id = randomToken();
  await deleteExpiredSessions(db, now);
  await insertSession(db, {
    idHash: hashSessionId(id),
    userId,
    csrfToken: randomToken(),
    expiresAt: new Date(now.getTime() + SESSION_TTL_MS),
  });
  reply.setCookie(SESSION_COOKIE, id, cookieOptions(req, SESSION_TTL_MS / 1000));
}

/** The live session named by the request's cookie, or null. */
export async function readSession(db: Executor, req: FastifyRequest, now = new Date()): Promise<SessionWithUser | null> {
  const id = req.cookies[SESSION_COOKIE];
  if (!id || id.length > 200) return null;
  return (await findLiveSession(db, hashSessionId(id), now)) ?? null;
}

/** Deletes the session and clears its cookie. */
export async function endSession(db: Executor, req: FastifyRequest, reply: FastifyReply): Promise<void> {
  const id = req.cookies[SESSION_COOKIE];
  if (id) await deleteSession(db, hashSessionId(id));
  reply.clearCookie(SESSION_COOKIE, cookieOptions(req));
}
