/**
 * Negotiates the language of every request (before authentication, so even a 401 or a 404 speaks it):
 * sets `request.lang` and answers `Content-Language`. `Vary` names both inputs so a cache keeps the
 * languages apart.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { DEFAULT_LANGUAGE, type Language } from '../../i18n/catalogue.js';
import { negotiateLanguage } from '../../i18n/negotiate.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** Language of the human-readable messages of this response. */
    lang: Language;
  }
}

/** Distinct header pairs remembered; clients send few distinct ones (a browser's list never changes). */
const MEMO_LIMIT = 512;

/**
 * negotiateLanguage, remembered per header pair: every request of the hottest public paths (certificate
 * lookups and badges) pays for parsing the same Accept-Language again otherwise. Only strings go in the
 * key, so a header's value cannot be mistaken for another's; the memory is bounded (emptied when full).
 */
export function memoizedNegotiation(): (headers: FastifyRequest['headers']) => Language {
  const memo = new Map<string, Language>();
  return (headers) => {
    const lang = headers['lang'];
    const accept = headers['accept-language'];
    if (lang === undefined && accept === undefined) return DEFAULT_LANGUAGE;
    if ((lang !== undefined && typeof lang !== 'string') || (accept !== undefined && typeof accept !== 'string')) return negotiateLanguage(headers);
    const key = `${lang ?? ''}\n${accept ?? ''}`;
    let language = memo.get(key);
    if (language === undefined) {
      language = negotiateLanguage(headers);
      if (memo.size >= MEMO_LIMIT) memo.clear();
      memo.set(key, language);
    }
    return language;
  };
}

/** The request headers the language is negotiated from (the `Vary` of every response). */
export const LANGUAGE_VARY = 'lang, Accept-Language';

/** Installs the hook on the root instance (not encapsulated: it must run for every route and for 404s). */
export function installLanguageNegotiation(app: FastifyInstance): void {
  app.decorateRequest('lang', DEFAULT_LANGUAGE);
  const negotiate = memoizedNegotiation();
  app.addHook('onRequest', async (request, reply) => {
    request.lang = negotiate(request.headers);
    reply.header('Content-Language', request.lang);
    reply.header('Vary', LANGUAGE_VARY);
  });
}
