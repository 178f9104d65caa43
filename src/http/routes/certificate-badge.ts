/**
 * `/verify/{certificate_id}/badge.svg`: the badge other sites embed (`<img>`), so it is public, readable
 * from any origin and revalidated on every use (ETag + `Cache-Control: no-cache`): a revocation shows at
 * once. One primary-key read per request; a 304 when the badge did not change. Not part of the API
 * document (like the web pages); registered beside the web plugin so its session lookups do not apply.
 */
import type { FastifyPluginAsync } from 'fastify';
import { certificateStatus, findPublicCertificate } from '../../domain/certificates/index.js';
import { NotFoundError } from '../../domain/errors.js';
import { renderBadge } from '../../web/certificate-badge.js';
import { matchesIfNoneMatch } from '../conditional.js';
import { publicReadPreflight, setPublicReadCors } from '../public-read-cors.js';
import { certificateEtag, PUBLIC_CERTIFICATE_CACHE_CONTROL } from './certificates.js';

export const BADGE_PATH = '/verify/:certificate_id/badge.svg';

/** An SVG opened on its own may not run or load anything. */
const BADGE_CSP = "default-src 'none'; sandbox";

export const certificateBadgeRoutes: FastifyPluginAsync = async (app) => {
  const db = app.services.database.db;
  app.get<{ Params: { certificate_id: string } }>(BADGE_PATH, { schema: { hide: true } }, async (request, reply) => {
    setPublicReadCors(reply);
    const row = await findPublicCertificate(db, request.params.certificate_id);
    if (!row) {
      reply.header('Cache-Control', 'no-store');
      throw new NotFoundError('errors.certificate_not_found');
    }
    const etag = certificateEtag(row).replace(/"$/, '-badge"');
    reply.header('ETag', etag).header('Cache-Control', PUBLIC_CERTIFICATE_CACHE_CONTROL).header('Content-Security-Policy', BADGE_CSP);
    if (matchesIfNoneMatch(request.headers['if-none-match'], etag)) return reply.code(304).send();
    return reply
      .type('image/svg+xml; charset=utf-8')
      .send(renderBadge({ status: certificateStatus(row), verifyUrl: row.verify_url, assetName: row.asset_name }));
  });
  publicReadPreflight(app, BADGE_PATH);
};
