/**
 * The one place the OAuth code turns a message key into text for a request: the language comes from
 * the `lang` header, else Accept-Language, else English, and `Content-Language` says which was used.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { negotiateLanguage, translate } from '../i18n/index.js';
import type { MessageParams, OAuthMessageKey } from './messages.js';

/** Translates `key` for the request and sets `Content-Language` on the reply. */
export function localizeFor(request: FastifyRequest, reply: FastifyReply, key: OAuthMessageKey, params: MessageParams = {}): string {
  const lang = negotiateLanguage(request.headers);
  reply.header('Content-Language', lang);
  return translate(lang, key, params);
}
