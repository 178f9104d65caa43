/**
 * The public transparency log over HTTP (DECISIONS 14, docs/transparency-log.md), no credentials, CORS open:
 * - `GET /log/checkpoint`: the newest published signed checkpoint (C2SP tlog-checkpoint), `no-cache`;
 * - `GET /log/tile/<L>/<N>[.p/<W>]` and `GET /log/tile/entries/<N>[.p/<W>]`: hash tiles and entry bundles
 *   (C2SP tlog-tiles), full ones immutable for a year, partial ones for 60 s;
 * - `GET /log/key`: the verifier key string (C2SP signed-note, Ed25519).
 * Tiles, bundles and the checkpoint are served from object storage, where the sequencer wrote them: a
 * bucket or a CDN in front of it can serve the same paths. A path that is not a tlog-tiles path, or names a
 * tile that does not exist (yet), is 404 (never an empty 200, never a 500).
 */
import { Type, type Static } from '@sinclair/typebox';
import type { FastifyPluginAsync, FastifyReply } from 'fastify';
import { ErrorDetail } from '../../contract/schemas.js';
import { NotFoundError } from '../../domain/errors.js';
import { CHECKPOINT_CONTENT_TYPE, CHECKPOINT_KEY, LOG_OBJECT_PREFIX, parseTilePath, TILE_CONTENT_TYPE, TILE_WIDTH } from '../../domain/transparency-log/index.js';
import { publicReadPreflight, setPublicReadCors } from '../../http-headers/public-read-cors.js';

/** Full tiles and bundles never change (tlog-tiles: immutable). */
export const FULL_TILE_CACHE_CONTROL = 'public, max-age=31536000, immutable';
/** Partial tiles may be deleted once full (tlog-tiles), so caches keep them briefly (DECISIONS 14: ≤ 60 s). */
export const PARTIAL_TILE_CACHE_CONTROL = 'public, max-age=60';
/** The checkpoint moves with every batch: asked again before each use. */
export const CHECKPOINT_CACHE_CONTROL = 'no-cache';
export const LOG_KEY_CACHE_CONTROL = 'public, max-age=3600';

export const TILE_ROUTE = '/log/tile/*';
/** How the tile route is named in the OpenAPI document (a path parameter standing for several segments). */
export const TILE_ROUTE_DOCUMENTED = '/log/tile/{tile_path}';

const detail = (description: string) => Type.Unsafe<Static<typeof ErrorDetail>>({ ...Type.Ref(ErrorDetail.$id!), description });
const cacheControl = (value: string) => ({ 'Cache-Control': { type: 'string', description: `\`${value}\`` } });

function bytesResponse(description: string, mediaType: string, cache: string) {
  return {
    description,
    content: { [mediaType]: { schema: { type: 'string', format: 'binary' } } },
    headers: { ...cacheControl(cache), 'Access-Control-Allow-Origin': { type: 'string', description: '`*`' } },
  };
}

export const transparencyLogRoutes: FastifyPluginAsync = async (app) => {
  const { storage, transparencyLog, logTiles } = app.services;

  const notFound = (reply: FastifyReply): never => {
    reply.header('Cache-Control', 'no-store');
    throw new NotFoundError();
  };

  app.get(
    '/log/checkpoint',
    {
      config: { operationName: 'get_log_checkpoint' },
      schema: {
        summary: 'Get Log Checkpoint',
        description:
          'The transparency log\'s newest signed checkpoint: a C2SP tlog-checkpoint (origin, tree size, base64 RFC 6962 root hash) signed as a C2SP signed-note with the key of `GET /log/key`. Public, CORS open, `Cache-Control: no-cache`; 404 before the log published its first one.',
        tags: ['transparency log'],
        security: [],
        response: {
          200: bytesResponse('The signed checkpoint (UTF-8 text).', CHECKPOINT_CONTENT_TYPE, CHECKPOINT_CACHE_CONTROL),
          404: detail('The log has not published a checkpoint yet.'),
        },
      },
    },
    async (_request, reply) => {
      setPublicReadCors(reply);
      const object = await storage.get(CHECKPOINT_KEY);
      if (!object) return notFound(reply);
      return reply.type(CHECKPOINT_CONTENT_TYPE).header('Content-Length', String(object.size)).header('Cache-Control', CHECKPOINT_CACHE_CONTROL).send(object.body);
    },
  );
  publicReadPreflight(app, '/log/checkpoint');

  app.get(
    '/log/key',
    {
      config: { operationName: 'get_log_key' },
      schema: {
        summary: 'Get Log Key',
        description:
          'The verifier key of the log\'s checkpoints (C2SP signed-note, Ed25519): `<name>+<8 hex key id>+<base64 of 0x01 || public key>`, the name being the log\'s origin, followed by a newline. Public, CORS open.',
        tags: ['transparency log'],
        security: [],
        response: { 200: bytesResponse('The verifier key string and a newline.', 'text/plain; charset=utf-8', LOG_KEY_CACHE_CONTROL) },
      },
    },
    async (_request, reply) => {
      setPublicReadCors(reply);
      return reply.type('text/plain; charset=utf-8').header('Cache-Control', LOG_KEY_CACHE_CONTROL).send(`${await transparencyLog.verifierKey()}\n`);
    },
  );
  publicReadPreflight(app, '/log/key');

  app.get(
    TILE_ROUTE,
    {
      config: { operationName: 'get_log_tile' },
      schema: {
        summary: 'Get Log Tile',
        description:
          'A C2SP tlog-tiles resource: a hash tile `tile/<L>/<N>[.p/<W>]` (height 8: 256 hashes of 32 bytes, or W of a partial tile) or an entry bundle `tile/entries/<N>[.p/<W>]` (each entry a big-endian uint16 length, then its bytes), `<N>` in 3-digit elements all but the last prefixed `x` (`x001/x234/067`); `tile_path` is everything after `/log/tile/`, slashes included. Full tiles `Cache-Control: public, max-age=31536000, immutable`, partial ones `public, max-age=60`. A path that is not a tile path, or a tile that does not exist, is 404.',
        tags: ['transparency log'],
        security: [],
        params: Type.Object({ '*': Type.String({ description: 'The tile path after `/log/tile/` (slashes included), e.g. `0/x001/234.p/17` or `entries/000`.' }) }),
        response: {
          200: bytesResponse('The tile or bundle.', TILE_CONTENT_TYPE, `${FULL_TILE_CACHE_CONTROL}\` or \`${PARTIAL_TILE_CACHE_CONTROL}`),
          404: detail('Not a tile path, or no such tile (yet).'),
        },
      },
    },
    async (request, reply) => {
      setPublicReadCors(reply);
      const path = `tile/${(request.params as { '*': string })['*']}`;
      const tile = parseTilePath(path);
      if (!tile) return notFound(reply);
      // Read whole (8 KiB a tile, ~35 KiB a bundle) and kept: the bytes at a tile path never change, and
      // the fast path (log-tile-fast-path.ts) answers the next requests for it from memory.
      let bytes = logTiles.get(path);
      if (!bytes) {
        const object = await storage.get(`${LOG_OBJECT_PREFIX}${path}`);
        if (!object) return notFound(reply);
        const chunks: Buffer[] = [];
        for await (const chunk of object.body) chunks.push(chunk as Buffer);
        bytes = Buffer.concat(chunks);
        logTiles.set(path, bytes);
      }
      return reply
        .type(TILE_CONTENT_TYPE)
        .header('Cache-Control', tile.width === TILE_WIDTH ? FULL_TILE_CACHE_CONTROL : PARTIAL_TILE_CACHE_CONTROL)
        .send(bytes);
    },
  );
  publicReadPreflight(app, TILE_ROUTE);
};
