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
import { findOrderCertificate, toCertificateObject } from '../../domain/certificates/index.js';
import { listPublishedTrustAnchors } from '../../domain/content-credentials/c2pa-signer.repository.js';
import { attachmentDisposition, CREDENTIALED_MEDIA_TYPES, openCredentialedFile, PENDING_RETRY_AFTER_SECONDS } from '../../domain/content-credentials/credentialed-file.js';
import { NotFoundError } from '../../domain/errors.js';
import { requireScope } from '../../oauth/index.js';
import { matchesIfNoneMatch } from '../conditional.js';
import { apiResponses, readSecurity, ref } from '../openapi/route-docs.js';
import { publicReadPreflight, setPublicReadCors } from '../../http-headers/public-read-cors.js';

const LangHeader = Type.Object({
  lang: Type.Optional(Type.String({ description: 'Language of human-readable messages (en, fr, de, es, ja).' })),
});

export { certificateEtag } from '../public-certificate-cache.js';

/** Caching of public certificate answers: any cache may keep them but must ask again before each use. */
export const PUBLIC_CERTIFICATE_CACHE_CONTROL = 'public, no-cache';

export const PUBLIC_CERTIFICATE_PATH = '/v1/certificates/:certificate_id';

export const certificateRoutes: FastifyPluginAsync = async (app) => {
  const db = app.services.database.db;
  const publicCertificates = app.services.publicCertificates;
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

  const binary = { schema: { type: 'string', format: 'binary' } };
  app.get<{ Params: Static<typeof OrderPathParams> }>(
    '/v1/orders/:order_id/certificate/file',
    {
      onRequest: requireScope(SCOPES.read),
      config: { operationName: 'get_order_certificate_file' },
      schema: {
        summary: 'Get Order Certificate File',
        description:
          'The certified asset with Content Credentials: a copy of the file as uploaded with a C2PA manifest embedded that carries the certificate (assertion `org.certdesk.certificate`), signed with the service\'s C2PA signing certificate (docs/content-credentials.md). Streamed with the asset\'s media type and `Content-Disposition: attachment` naming the asset. 404 while the order has no certificate (or is not visible); 409 while the file is being made (`Retry-After`) or when the format cannot carry Content Credentials (the detail says so; the certificate object says `content_credentials`); 410 once the certificate is revoked.',
        tags: ['certificates'],
        params: OrderPathParams,
        headers: LangHeader,
        security: readSecurity(),
        response: {
          ...apiResponses(Type.Null()),
          200: {
            description: 'The credentialed file, streamed.',
            headers: {
              'Content-Disposition': { type: 'string', description: '`attachment` with the asset\'s name (`filename` and RFC 5987 `filename*`).' },
              'Content-Length': { type: 'integer', description: 'Size of the credentialed file in bytes.' },
            },
            content: Object.fromEntries(CREDENTIALED_MEDIA_TYPES.map((type) => [type, binary])),
          },
          409: Type.Unsafe<Static<typeof ErrorDetail>>({
            ...Type.Ref(ErrorDetail.$id!),
            description: `The file is still being made (with \`Retry-After\`, ${PENDING_RETRY_AFTER_SECONDS} s), or the asset cannot carry Content Credentials (the detail says which).`,
          }),
          410: detail('The certificate is revoked: its credentialed file is no longer handed out.'),
        },
      },
    },
    async (request, reply) => {
      const file = await openCredentialedFile(db, app.services.storage, request.principal, request.params.order_id);
      return reply
        .header('Cache-Control', 'no-store')
        .header('Content-Disposition', attachmentDisposition(file.fileName))
        .header('Content-Length', String(file.size))
        .header('X-Content-Type-Options', 'nosniff')
        .type(file.mediaType)
        .send(file.body);
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
      // Rendered once and kept while no change is announced (src/http/public-certificate-cache.ts).
      const answer = await publicCertificates.get(request.params.certificate_id);
      if (!answer) {
        reply.header('Cache-Control', 'no-store');
        throw new NotFoundError('errors.certificate_not_found');
      }
      reply.header('ETag', answer.etag).header('Cache-Control', PUBLIC_CERTIFICATE_CACHE_CONTROL);
      if (matchesIfNoneMatch(request.headers['if-none-match'], answer.etag)) return reply.code(304).send();
      // Already JSON: Fastify sends a string with a JSON content type as it is (no second serialization).
      return reply.type('application/json; charset=utf-8').send(answer.json);
    },
  );
  publicReadPreflight(app, PUBLIC_CERTIFICATE_PATH);

  // The roots a C2PA verifier adds to trust this certifier's Content Credentials (docs/content-credentials.md):
  // every chain that ever signed a file, current and retired. Public and CORS open, like the JWKS.
  app.get(C2PA_TRUST_ANCHORS_PATH, async (_request, reply) => {
    setPublicReadCors(reply);
    const anchors = await listPublishedTrustAnchors(db);
    return reply.header('Cache-Control', 'public, max-age=300').type('application/x-pem-file').send(anchors.join(''));
  });
  publicReadPreflight(app, C2PA_TRUST_ANCHORS_PATH);
};

export const C2PA_TRUST_ANCHORS_PATH = '/.well-known/c2pa-trust-anchors.pem';
