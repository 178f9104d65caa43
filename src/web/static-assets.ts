/**
 * The web application's static assets, served with a content hash in their URL so they can be cached for
 * a long time: the stylesheet and icon from src/web/static (shipped with the package as they are), and
 * the browser scripts bundled from src/web/client (TypeScript). The built server reads the bundles the
 * build wrote to dist/web/static; the server running from its sources (tests, `tsx`) bundles them in
 * memory at first use, so it always serves the code beside it. Everything is loaded once per process.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import { promisify } from 'node:util';
import { gzip } from 'node:zlib';
import path from 'node:path';
import type { FastifyPluginAsync } from 'fastify';
import { packageRoot } from '../paths.js';
import { bundleClientInMemory, bundleNameOf, clientBundleDir, clientEntryFiles } from './client-bundle.js';

interface Asset {
  body: Buffer;
  contentType: string;
  hash: string;
  /** The gzip of a large asset, made on its first request (the C2PA WebAssembly: 9 MB, ~3 MB gzipped). */
  gzipped?: Promise<Buffer>;
}

/** Assets kept as they are in src/web/static. */
const FILE_TYPES: Record<string, string> = {
  'app.css': 'text/css; charset=utf-8',
  'favicon.svg': 'image/svg+xml',
};
const SCRIPT_TYPE = 'text/javascript; charset=utf-8';
/**
 * The C2PA reference implementation (c2pa-rs) compiled to WebAssembly, from its npm package: the verify
 * pages fetch it from this origin only when a file is dropped (`application/wasm`, so browsers compile
 * it while it downloads).
 */
const C2PA_WASM = 'c2pa.wasm';
const WASM_TYPE = 'application/wasm';
const GZIP_MIN_BYTES = 1024 * 1024;
const gzipAsync = promisify(gzip);
const staticDir = path.join(packageRoot, 'src', 'web', 'static');
/** This module runs from src/ (tsx: a .ts URL) or from dist/ (built: a .js URL). */
const runningFromSources = import.meta.url.endsWith('.ts');

function asset(body: Buffer, contentType: string): Asset {
  return { body, contentType, hash: createHash('sha256').update(body).digest('hex').slice(0, 12) };
}

function readBundles(): Map<string, Buffer> {
  if (runningFromSources) return bundleClientInMemory();
  const bundles = new Map<string, Buffer>();
  for (const name of clientEntryFiles().map(bundleNameOf)) {
    const file = path.join(clientBundleDir, name);
    if (!fs.existsSync(file)) throw new Error(`browser bundle ${file} is missing: run \`npm run build\``);
    bundles.set(name, fs.readFileSync(file));
  }
  return bundles;
}

let loaded: Map<string, Asset> | null = null;

function assets(): Map<string, Asset> {
  if (loaded) return loaded;
  const map = new Map<string, Asset>();
  for (const [name, type] of Object.entries(FILE_TYPES)) map.set(name, asset(fs.readFileSync(path.join(staticDir, name)), type));
  for (const [name, body] of readBundles()) map.set(name, asset(body, SCRIPT_TYPE));
  map.set(C2PA_WASM, asset(fs.readFileSync(createRequire(import.meta.url).resolve('@contentauth/c2pa-wasm/c2pa.wasm')), WASM_TYPE));
  loaded = map;
  return map;
}

/** URL of an asset, versioned by its content (`app.css`, `favicon.svg`, or a bundle such as `app.js`). */
export function assetUrl(name: string): string {
  const found = assets().get(name);
  // A page linking an asset that does not exist is a programming error, caught by any test rendering it.
  if (!found) throw new Error(`unknown static asset ${name}`);
  return `/static/${name}?v=${found.hash}`;
}

export const staticAssetRoutes: FastifyPluginAsync = async (app) => {
  // Loaded (or bundled) before the first request rather than during it.
  assets();
  app.get<{ Params: { name: string } }>('/static/:name', async (req, reply) => {
    const found = assets().get(req.params.name);
    if (!found) return reply.code(404).type('text/plain; charset=utf-8').send('Not Found');
    const etag = `"${found.hash}"`;
    reply.header('ETag', etag).header('Cache-Control', 'public, max-age=31536000, immutable');
    if (req.headers['if-none-match'] === etag) return reply.code(304).send();
    if (found.body.length >= GZIP_MIN_BYTES) {
      reply.header('Vary', 'Accept-Encoding');
      if (/\bgzip\b/.test(String(req.headers['accept-encoding'] ?? ''))) {
        found.gzipped ??= gzipAsync(found.body);
        return reply.type(found.contentType).header('Content-Encoding', 'gzip').send(await found.gzipped);
      }
    }
    return reply.type(found.contentType).send(found.body);
  });

  // Browsers ask for /favicon.ico on every site whatever the page links; an SVG answers it (and the
  // pages link the versioned one).
  app.get('/favicon.ico', async (_req, reply) => {
    const icon = assets().get('favicon.svg')!;
    return reply.header('Cache-Control', 'public, max-age=86400').type(icon.contentType).send(icon.body);
  });
};
