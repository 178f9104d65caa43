/**
 * Sign-in and sign-out. A wrong e-mail and a wrong password get the same message, status and (thanks to
 * the decoy hash) the same work; failures are limited per e-mail and per client address.
 */
import { withoutUnstorable } from '../../http/validation/unstorable-text.js';
import type { RefusedTextAnswer } from '../refused-text.js';
import type { FastifyPluginAsync } from 'fastify';
import { decoyPasswordHash, verifyPassword } from '../../domain/users/password.js';
import { emailKey, findUserByEmail } from '../../domain/users/user.repository.js';
import { requireCsrf } from '../guards.js';
import { redirectToSignIn, safeNext, sendCsrfRefusal, sendPage } from '../respond.js';
import { presentedToken, SIGN_IN_CSRF_COOKIE, signInToken, tokensMatch } from '../session/csrf.js';
import { cookieOptions, endSession, startSession } from '../session/web-session.js';
import { messagePage } from '../views/message-page.js';
import { signInPage } from '../views/sign-in-page.js';
import type { WebDeps } from '../web-deps.js';

type Form = Record<string, unknown>;

const field = (body: unknown, name: string, max: number): string => {
  const value = body && typeof body === 'object' ? (body as Form)[name] : undefined;
  return typeof value === 'string' ? value.slice(0, max) : '';
};

export function signInRoutes(deps: WebDeps): FastifyPluginAsync {
  return async (app) => {
    app.get('/', async (req, reply) => reply.redirect(req.web.session ? '/orders' : '/sign-in', 303));

    app.get<{ Querystring: Record<string, string | undefined> }>('/sign-in', async (req, reply) => {
      const next = safeNext(req.query.next) ?? undefined;
      if (req.web.session) return reply.redirect(next ?? '/orders', 303);
      const { t } = req.web;
      const notice = req.query.signed_out ? t('web.sign_in.signed_out') : req.query.expired ? t('web.sign_in.expired') : null;
      return sendPage(reply, signInPage(req.web, { csrfToken: signInToken(req, reply), next, notice }));
    });

    // Text that cannot be stored in a field (src/web/refused-text.ts): the form again with the error; nothing is looked up or counted.
    const refusedText: RefusedTextAnswer = async (req, reply, refusal) => {
      const ctx = req.web;
      const next = safeNext(field(req.body, 'next', 2000)) ?? undefined;
      const email = withoutUnstorable(field(req.body, 'email', 320).trim());
      return sendPage(reply, signInPage(ctx, { csrfToken: signInToken(req, reply), email, next, error: ctx.t('web.form.refused_text', { character: refusal.character }) }), 422);
    };

    app.post('/sign-in', { config: { refusedText } }, async (req, reply) => {
      const ctx = req.web;
      if (!tokensMatch(req.cookies[SIGN_IN_CSRF_COOKIE], presentedToken(req.body))) return sendCsrfRefusal(ctx, reply);
      const email = field(req.body, 'email', 320).trim();
      const password = field(req.body, 'password', 1024);
      const next = safeNext(field(req.body, 'next', 2000)) ?? undefined;
      // Limited per (account, address), with higher ceilings per account and per address (rate-limit/).
      const attempt = { subject: `email:${emailKey(email)}`, address: req.ip };
      const verdict = await deps.signInLimiter.check(attempt);
      if (verdict.blocked) {
        reply.header('Retry-After', String(verdict.retryAfterSeconds));
        const minutes = Math.max(1, Math.ceil(verdict.retryAfterSeconds / 60));
        return sendPage(reply, messagePage(ctx, ctx.t('web.error.rate_limited_title'), ctx.t('web.error.rate_limited', { minutes })), 429);
      }

      const user = email === '' ? undefined : await findUserByEmail(deps.db, email);
      // Unknown e-mails (and users without a password) verify against a decoy so the timing is the same.
      const passwordMatches = await verifyPassword(password, user?.password_hash ?? (await decoyPasswordHash()));
      if (!user || !user.password_hash || !passwordMatches) {
        await deps.signInLimiter.recordFailure(attempt);
        req.log.info({ event: 'web.sign_in_failed' }, 'web sign-in failed');
        const csrfToken = signInToken(req, reply);
        return sendPage(reply, signInPage(ctx, { csrfToken, email, next, error: ctx.t('web.sign_in.failed') }), 401);
      }

      await deps.signInLimiter.recordSuccess(attempt, verdict);
      await startSession(deps.db, req, reply, user.id);
      reply.clearCookie(SIGN_IN_CSRF_COOKIE, cookieOptions(req));
      req.log.info({ event: 'web.signed_in', userId: user.id }, 'web sign-in');
      return reply.redirect(next ?? '/orders', 303);
    });

    app.post('/sign-out', async (req, reply) => {
      if (!req.web.session) return redirectToSignIn(req, reply);
      await requireCsrf(req, reply);
      if (reply.sent) return reply;
      await endSession(deps.db, req, reply);
      return reply.redirect('/sign-in?signed_out=1', 303);
    });
  };
}
