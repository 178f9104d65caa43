/**
 * GET /objects/<key>?expires=…&signature=…: serves previews and layers of the embedded object storage to
 * whoever holds a presigned URL (the URL is the credential, so no bearer token). A signature or expiry that
 * does not hold is 403; a well-signed URL of a missing object is 404. Bytes are streamed, never buffered.
 */
import type { FastifyPluginAsync } from 'fastify';
import { ForbiddenError, NotFoundError } from '../../domain/errors.js';
import { createHmacPresigner } from '../../domain/orders/index.js';
import { isValidObjectKey, openObjectStorage, type ObjectStorage } from '../../storage/object-storage/index.js';
import type { HmacUrlPresigner } from '../../storage/object-storage/presign.js';

/** Registers GET /objects/*, reading from `deps.storage` or the configured object storage. */
export const objectRoutes: FastifyPluginAsync = async (app) => {
  const storage: ObjectStorage = app.deps.storage ?? openObjectStorage(app.deps.config);
  let presigner: Promise<HmacUrlPresigner> | null = null;
  const getPresigner = () => {
    presigner ??= createHmacPresigner(app.deps.database.db, app.deps.config).catch((err: unknown) => {
      presigner = null; // a database hiccup at first use must not stick
      throw err;
    });
    return presigner;
  };

  app.get('/objects/*', { schema: { hide: true } }, async (request, reply) => {
    const key = (request.params as { '*': string })['*'];
    const query = request.query as Record<string, unknown>;
    const now = Math.floor(Date.now() / 1000);
    if ((await getPresigner()).verify(key, query.expires, query.signature, now) !== 'ok') {
      throw new ForbiddenError('errors.invalid_signature');
    }
    const object = isValidObjectKey(key) ? await storage.get(key) : null;
    if (!object) throw new NotFoundError();
    const maxAge = Math.max(0, Number(query.expires) - now);
    return reply
      .header('Content-Type', object.contentType)
      .header('Content-Length', String(object.size))
      // The URL stops working at `expires`; caches must not serve it longer, nor share it.
      .header('Cache-Control', `private, max-age=${maxAge}`)
      .header('X-Content-Type-Options', 'nosniff')
      .send(object.body);
  });
};
