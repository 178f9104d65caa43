/**
 * What every page needs about its request: the language (query `lang` > cookie > Accept-Language), a
 * translator bound to it, and the signed-in user (null on public pages).
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ALL_SCOPES } from '../contract/schemas.js';
import type { SessionWithUser } from '../domain/sessions/index.js';
import { principalFor, type Principal } from '../domain/principal.js';
import { isLanguage, negotiateLanguage, translate, type Language, type MessageKey, type MessageVars } from '../i18n/index.js';
import { cookieOptions } from './session/web-session.js';

export const LANGUAGE_COOKIE = 'certdesk_lang';

export type Translator = (key: MessageKey & `web.${string}`, vars?: MessageVars) => string;

export interface WebContext {
  lang: Language;
  t: Translator;
  session: SessionWithUser | null;
  /** The path and query of the request, for language links and the post-sign-in return. */
  url: string;
}

/** Picks the page language; a valid `?lang=` is remembered in a cookie for a year. */
export function pickLanguage(req: FastifyRequest, reply: FastifyReply): Language {
  const query = (req.query ?? {}) as Record<string, unknown>;
  const asked = typeof query.lang === 'string' ? query.lang.toLowerCase() : '';
  if (isLanguage(asked)) {
    if (req.cookies[LANGUAGE_COOKIE] !== asked) reply.setCookie(LANGUAGE_COOKIE, asked, cookieOptions(req, 365 * 24 * 3600));
    return asked;
  }
  const remembered = req.cookies[LANGUAGE_COOKIE] ?? '';
  if (isLanguage(remembered)) return remembered;
  return negotiateLanguage({ 'accept-language': req.headers['accept-language'] });
}

export function translatorFor(lang: Language): Translator {
  return (key, vars) => translate(lang, key, vars);
}

/** The principal of a web session: the same visibility rules as an API client acting for the user. */
export function principalOf(session: SessionWithUser): Principal {
  return principalFor(session, null, ALL_SCOPES);
}
