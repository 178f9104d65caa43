/**
 * The web application's one stylesheet and one script, read once at start from src/web/static (shipped
 * with the package) and served with a content hash in their URL, so they can be cached for a long time.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { FastifyPluginAsync } from 'fastify';
import { packageRoot } from '../paths.js';

interface Asset {
  body: Buffer;
  contentType: string;
  hash: string;
}

const ASSET_TYPES: Record<string, string> = {
  'app.css': 'text/css; charset=utf-8',
  'app.js': 'text/javascript; charset=utf-8',
  'order-write.js': 'text/javascript; charset=utf-8',
  'review-claim.js': 'text/javascript; charset=utf-8',
  'favicon.svg': 'image/svg+xml',
};
const staticDir = path.join(packageRoot, 'src', 'web', 'static');

const assets = new Map<string, Asset>(
  Object.entries(ASSET_TYPES).map(([name, contentType]) => {
    const body = fs.readFileSync(path.join(staticDir, name));
    return [name, { body, contentType, hash: createHash('sha256').update(body).digest('hex').slice(0, 12) }];
  }),
);

/** URL of an asset, versioned by its content. */
export function assetUrl(name: keyof typeof ASSET_TYPES & string): string {
  return `/static/${name}?v=${assets.get(name)?.hash ?? '0'}`;
}

export const staticAssetRoutes: FastifyPluginAsync = async (app) => {
  app.get<{ Params: { name: string } }>('/static/:name', async (req, reply) => {
    const asset = assets.get(req.params.name);
    if (!asset) return reply.code(404).type('text/plain; charset=utf-8').send('Not Found');
    const etag = `"${asset.hash}"`;
    reply.header('ETag', etag).header('Cache-Control', 'public, max-age=31536000, immutable');
    if (req.headers['if-none-match'] === etag) return reply.code(304).send();
    return reply.type(asset.contentType).send(asset.body);
  });

  // Browsers ask for /favicon.ico on every site whatever the page links; an SVG answers it (and the
  // pages link the versioned one).
  app.get('/favicon.ico', async (_req, reply) => {
    const icon = assets.get('favicon.svg')!;
    return reply.header('Cache-Control', 'public, max-age=86400').type(icon.contentType).send(icon.body);
  });
};
