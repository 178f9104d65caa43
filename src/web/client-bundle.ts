/**
 * How the browser code in src/web/client is bundled: one place for the options, used by the build
 * (scripts/build.mjs writes dist/web/static/<name>.js) and by the static asset route when the server runs
 * from its TypeScript sources (tests, `tsx`), which bundles in memory so a test never serves a stale build.
 *
 * Entry points are the `.ts` files directly in src/web/client (each becomes `<name>.js`); shared modules
 * live in its subfolders (src/web/client/lib/) and are bundled into the entries that import them.
 */
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { BuildOptions } from 'esbuild';
import { packageRoot } from '../paths.js';

export const clientSourceDir = path.join(packageRoot, 'src', 'web', 'client');
export const clientBundleDir = path.join(packageRoot, 'dist', 'web', 'static');

/** Entry file names (`app.ts`, `order-write.ts`, ...) in src/web/client, sorted. */
export function clientEntryFiles(dir: string = clientSourceDir): string[] {
  if (!fs.existsSync(dir)) return [];
  return fs
    .readdirSync(dir, { withFileTypes: true })
    .filter((e) => e.isFile() && e.name.endsWith('.ts') && !e.name.endsWith('.test.ts') && !e.name.endsWith('.d.ts'))
    .map((e) => e.name)
    .sort();
}

/** The bundle name a page links (`app.js`) of an entry file (`app.ts`). */
export function bundleNameOf(entryFile: string): string {
  return entryFile.replace(/\.ts$/, '.js');
}

/**
 * esbuild options shared by the build and the in-memory bundling. Classic scripts (IIFE, loaded with
 * `<script defer>`), nothing leaks into the page's globals; ES2020 covers every browser the pages support;
 * minified. Source maps are written beside the built bundles but not linked from them (no
 * sourceMappingURL): an operator can map a production stack trace, pages never download them.
 */
export function clientBuildOptions(entryFiles: readonly string[], dir: string = clientSourceDir): BuildOptions {
  return {
    entryPoints: entryFiles.map((f) => path.join(dir, f)),
    bundle: true,
    format: 'iife',
    platform: 'browser',
    target: 'es2020',
    minify: true,
    charset: 'utf8',
    legalComments: 'none',
    tsconfig: path.join(dir, 'tsconfig.json'),
    logLevel: 'silent',
  };
}

/** Bundles every entry in memory (sources run under tsx): bundle name → bytes. Throws on a build error. */
export function bundleClientInMemory(dir: string = clientSourceDir): Map<string, Buffer> {
  const entries = clientEntryFiles(dir);
  const out = new Map<string, Buffer>();
  if (entries.length === 0) return out;
  // esbuild is a build-time (dev) dependency: loaded only here, never by the built server.
  const esbuild = createRequire(import.meta.url)('esbuild') as typeof import('esbuild');
  const result = esbuild.buildSync({ ...clientBuildOptions(entries, dir), write: false, outdir: '/bundles' });
  for (const file of result.outputFiles) out.set(path.basename(file.path), Buffer.from(file.contents));
  return out;
}
