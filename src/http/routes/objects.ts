/**
 * The embedded object storage's presigned URLs (the URL is the credential, so no bearer token):
 * - GET /objects/<key>?expires=…&signature=…: previews and layers. A signature or expiry that does not
 *   hold is 403; a well-signed URL of a missing object is 404. Bytes are streamed, never buffered.
 * - PUT /objects/<key>?expires=…&size=…&signature=…: the bytes of an upload (POST /v1/uploads). The
 *   Content-Type must be the signed one (403 otherwise), the Content-Length must equal the signed size, the bytes are counted while streaming to the storage, and
 *   an object is written once: a second PUT to the same key is refused (412).
 *
 * Objects are served on the application's origin, so an uploader must not be able to make one act as a
 * page: only the raster image types in INLINE_TYPES are served as themselves; everything else (HTML, SVG,
 * XML, scripts, PDFs, unknown types) is `application/octet-stream` with `Content-Disposition: attachment`.
 * Every answer carries `X-Content-Type-Options: nosniff` and `Content-Security-Policy: default-src 'none';
 * sandbox`, so even a file a browser renders runs nothing and loads nothing (docs/intake.md).
 */
import type { FastifyPluginAsync } from 'fastify';
import { ApiError, ForbiddenError, NotFoundError } from '../../domain/errors.js';
import { isValidObjectKey, LocalDirectoryStorage, ObjectExistsError, ObjectSizeMismatchError } from '../../storage/object-storage/index.js';

/**
 * Media types served inline: raster images a browser decodes without running anything. SVG is not one of
 * them (it is a document that can carry scripts and links).
 */
export const INLINE_TYPES: ReadonlySet<string> = new Set(['image/png', 'image/jpeg', 'image/webp', 'image/gif']);

/** The policy of every object response: nothing loads, nothing runs, even if the bytes are rendered. */
export const OBJECT_CSP = "default-src 'none'; sandbox";

/** How a stored type is served: an allowlisted image as itself (parameters dropped), anything else as bytes to save. */
export function servedType(stored: string): { contentType: string; attachment: boolean } {
  const essence = stored.split(';')[0]!.trim().toLowerCase();
  return INLINE_TYPES.has(essence) ? { contentType: essence, attachment: false } : { contentType: 'application/octet-stream', attachment: true };
}

/** Registers GET and PUT /objects/* over the process's object storage and URL signers. */
export const objectRoutes: FastifyPluginAsync = async (app) => {
  const { storage, objectUrls, uploadSigner } = app.services;

  app.get('/objects/*', { schema: { hide: true } }, async (request, reply) => {
    const key = (request.params as { '*': string })['*'];
    const query = request.query as Record<string, unknown>;
    const now = Math.floor(Date.now() / 1000);
    if (objectUrls.verify(key, query.expires, query.signature, now) !== 'ok') {
      throw new ForbiddenError('errors.invalid_signature');
    }
    const object = isValidObjectKey(key) ? await storage.get(key) : null;
    if (!object) throw new NotFoundError();
    const maxAge = Math.max(0, Number(query.expires) - now);
    const served = servedType(object.contentType);
    if (served.attachment) reply.header('Content-Disposition', 'attachment');
    return reply
      .header('Content-Type', served.contentType)
      .header('Content-Length', String(object.size))
      // The URL stops working at `expires`; caches must not serve it longer, nor share it.
      .header('Cache-Control', `private, max-age=${maxAge}`)
      .header('X-Content-Type-Options', 'nosniff')
      .header('Content-Security-Policy', OBJECT_CSP)
      .send(object.body);
  });

  // Upload bodies are streamed to the storage as they arrive: no body parser, no body limit here (the
  // signed size is the limit, enforced by the byte counter).
  app.register(async (uploads) => {
    uploads.removeAllContentTypeParsers();
    uploads.addContentTypeParser('*', (_request, _payload, done) => done(null, undefined));
    uploads.put('/objects/*', { schema: { hide: true } }, async (request, reply) => {
      const key = (request.params as { '*': string })['*'];
      const query = request.query as Record<string, unknown>;
      // The Content-Type is signed: the one stored is the one announced, or nothing is stored.
      const contentType = request.headers['content-type'];
      const check = uploadSigner.verify(key, query.expires, query.size, query.signature, contentType);
      if (check !== 'ok' || !isValidObjectKey(key) || !(storage instanceof LocalDirectoryStorage)) {
        throw new ForbiddenError('errors.invalid_signature');
      }
      const size = Number(query.size);
      const declared = request.headers['content-length'];
      if (declared === undefined || !/^\d+$/.test(declared) || Number(declared) !== size) throw new ForbiddenError('errors.upload_size_mismatch');
      try {
        await storage.putStream(key, request.raw, { contentType: contentType!, expectedSize: size, ifNoneMatch: true });
      } catch (err) {
        if (err instanceof ObjectSizeMismatchError) throw new ForbiddenError('errors.upload_size_mismatch');
        if (err instanceof ObjectExistsError) throw new ApiError(412, 'errors.upload_already_received');
        throw err;
      }
      return reply.code(200).header('Cache-Control', 'no-store').send({ size });
    });
  });
};
