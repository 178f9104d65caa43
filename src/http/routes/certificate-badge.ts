/**
 * `/verify/{certificate_id}/badge.svg`: the badge other sites embed (`<img>`), so it is public, readable
 * from any origin and revalidated on every use (ETag + `Cache-Control: no-cache`): a revocation shows at
 * once. Served from the public certificate cache (one primary-key read when not kept); a 304 when the badge
 * did not change. Not part of the API
 * document (like the web pages); registered beside the web plugin so its session lookups do not apply.
 */
import type { FastifyPluginAsync } from 'fastify';
import { NotFoundError } from '../../domain/errors.js';
import { matchesIfNoneMatch } from '../conditional.js';
import { publicReadPreflight, setPublicReadCors } from '../../http-headers/public-read-cors.js';
import { PUBLIC_CERTIFICATE_CACHE_CONTROL } from './certificates.js';

export const BADGE_PATH = '/verify/:certificate_id/badge.svg';

/** An SVG opened on its own may not run or load anything. */
export const BADGE_CSP = "default-src 'none'; sandbox";

export const BADGE_CONTENT_TYPE = 'image/svg+xml; charset=utf-8';

export const certificateBadgeRoutes: FastifyPluginAsync = async (app) => {
  const publicCertificates = app.services.publicCertificates;
  app.get<{ Params: { certificate_id: string } }>(BADGE_PATH, { schema: { hide: true } }, async (request, reply) => {
    setPublicReadCors(reply);
    // Rendered once and kept while no change is announced (src/http/public-certificate-cache.ts).
    const answer = await publicCertificates.get(request.params.certificate_id);
    if (!answer) {
      reply.header('Cache-Control', 'no-store');
      throw new NotFoundError('errors.certificate_not_found');
    }
    reply.header('ETag', answer.badgeEtag).header('Cache-Control', PUBLIC_CERTIFICATE_CACHE_CONTROL).header('Content-Security-Policy', BADGE_CSP);
    if (matchesIfNoneMatch(request.headers['if-none-match'], answer.badgeEtag)) return reply.code(304).send();
    return reply.type(BADGE_CONTENT_TYPE).send(answer.badge);
  });
  publicReadPreflight(app, BADGE_PATH);
};
