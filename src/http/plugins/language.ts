/**
 * Negotiates the language of every request (before authentication, so even a 401 or a 404 speaks it):
 * sets `request.lang` and answers `Content-Language`. `Vary` names both inputs so a cache keeps the
 * languages apart.
 */
import type { FastifyInstance } from 'fastify';
import { DEFAULT_LANGUAGE, type Language } from '../../i18n/catalogue.js';
import { negotiateLanguage } from '../../i18n/negotiate.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** Language of the human-readable messages of this response. */
    lang: Language;
  }
}

/** Installs the hook on the root instance (not encapsulated: it must run for every route and for 404s). */
export function installLanguageNegotiation(app: FastifyInstance): void {
  app.decorateRequest('lang', DEFAULT_LANGUAGE);
  app.addHook('onRequest', async (request, reply) => {
    request.lang = negotiateLanguage(request.headers);
    reply.header('Content-Language', request.lang);
    reply.header('Vary', 'lang, Accept-Language');
  });
}
