/**
 * Certificates over HTTP (DECISIONS 9):
 * - `GET /v1/orders/{order_id}/certificate` (read scope, the order's visibility; 404 while none);
 * - `GET /v1/certificates/{certificate_id}`: public, no credentials, CORS open for GET, revalidated on every
 *   use (`Cache-Control: no-cache` + ETag) so a revocation shows at once.
 */
import { Type, type Static } from '@sinclair/typebox';
import type { FastifyPluginAsync } from 'fastify';
import { Certificate, CertificatePathParams, PublicCertificate } from '../../contract/certificate-schemas.js';
import { ErrorDetail, SCOPES } from '../../contract/schemas.js';
import { OrderPathParams } from '../../contract/intake-schemas.js';
import {
  findOrderCertificate,
  findPublicCertificate,
  toCertificateObject,
  toPublicCertificateObject,
  type CertificateRow,
} from '../../domain/certificates/index.js';
import { NotFoundError } from '../../domain/errors.js';
import { requireScope } from '../../oauth/index.js';
import { matchesIfNoneMatch } from '../conditional.js';
import { apiResponses, readSecurity, ref } from '../openapi/route-docs.js';
import { publicReadPreflight, setPublicReadCors } from '../public-read-cors.js';

const LangHeader = Type.Object({
  lang: Type.Optional(Type.String({ description: 'Language of human-readable messages (en, fr, de, es, ja).' })),
});

/** The entity tag of a certificate's public representation: it changes only when it is revoked (once). */
export function certificateEtag(row: Pick<CertificateRow, 'certificate_id' | 'revoked_at'>): string {
  return row.revoked_at ? `"${row.certificate_id}-revoked-${row.revoked_at.getTime()}"` : `"${row.certificate_id}-valid"`;
}

/** Caching of public certificate answers: any cache may keep them but must ask again before each use. */
export const PUBLIC_CERTIFICATE_CACHE_CONTROL = 'public, no-cache';

export const PUBLIC_CERTIFICATE_PATH = '/v1/certificates/:certificate_id';

export const certificateRoutes: FastifyPluginAsync = async (app) => {
  const db = app.services.database.db;
  const detail = (description: string) => Type.Unsafe<Static<typeof ErrorDetail>>({ ...Type.Ref(ErrorDetail.$id!), description });

  app.get<{ Params: Static<typeof OrderPathParams> }>(
    '/v1/orders/:order_id/certificate',
    {
      onRequest: requireScope(SCOPES.read),
      config: { operationName: 'get_order_certificate' },
      schema: {
        summary: 'Get Order Certificate',
        description: 'The certificate of a `Human Certified` order; 404 while the order has none, or when the caller may not see the order.',
        tags: ['certificates'],
        params: OrderPathParams,
        headers: LangHeader,
        security: readSecurity(),
        response: apiResponses(ref(Certificate)),
      },
    },
    async (request, reply) => {
      const row = await findOrderCertificate(db, request.principal, request.params.order_id);
      if (!row) throw new NotFoundError('errors.certificate_not_found');
      return reply.header('Cache-Control', 'no-store').send(toCertificateObject(row));
    },
  );

  app.get<{ Params: Static<typeof CertificatePathParams> }>(
    PUBLIC_CERTIFICATE_PATH,
    {
      config: { operationName: 'get_certificate' },
      schema: {
        summary: 'Get Certificate',
        description:
          'A certificate by id, for anyone (no credentials; `Access-Control-Allow-Origin: *`). Answers carry an ETag and `Cache-Control: no-cache`, so a revocation shows at once; `If-None-Match` gives 304. Unknown or malformed ids are 404.',
        tags: ['certificates'],
        params: CertificatePathParams,
        headers: LangHeader,
        security: [],
        response: {
          200: ref(PublicCertificate),
          304: Type.Null({ description: 'Not Modified: the ETag named in If-None-Match still holds.' }),
          404: detail('No certificate has this id.'),
        },
      },
    },
    async (request, reply) => {
      setPublicReadCors(reply);
      const row = await findPublicCertificate(db, request.params.certificate_id);
      if (!row) {
        reply.header('Cache-Control', 'no-store');
        throw new NotFoundError('errors.certificate_not_found');
      }
      const etag = certificateEtag(row);
      reply.header('ETag', etag).header('Cache-Control', PUBLIC_CERTIFICATE_CACHE_CONTROL);
      if (matchesIfNoneMatch(request.headers['if-none-match'], etag)) return reply.code(304).send();
      return reply.send(toPublicCertificateObject(row));
    },
  );
  publicReadPreflight(app, PUBLIC_CERTIFICATE_PATH);
};
