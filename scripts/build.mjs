#!/usr/bin/env node
// The build: compiles the server (src/ → dist/, tsc) and bundles the browser code (src/web/client/*.ts →
// dist/web/static/*.js, esbuild, with the options of src/web/client-bundle.ts), then stamps dist/.
// `npm run build` runs it; scripts/build-if-stale.mjs runs it when sources changed.
import { spawnSync } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

export const STAMP = 'dist/.build-stamp';

/** Builds the project in the current directory; returns a process exit status (0: built). */
export async function build() {
  const tsc = spawnSync(process.execPath, ['node_modules/typescript/bin/tsc', '-p', 'tsconfig.build.json'], { stdio: 'inherit' });
  if (tsc.status !== 0) return tsc.status ?? 1;

  // The options module was just compiled: the build and the server running from sources bundle alike.
  const bundle = await import(pathToFileURL(path.resolve('dist/web/client-bundle.js')).href);
  const esbuild = await import('esbuild');
  const entries = bundle.clientEntryFiles();
  // Emptied first, so a deleted entry point leaves no bundle behind.
  rmSync(bundle.clientBundleDir, { recursive: true, force: true });
  mkdirSync(bundle.clientBundleDir, { recursive: true });
  if (entries.length > 0) {
    const result = await esbuild
      .build({ ...bundle.clientBuildOptions(entries), outdir: bundle.clientBundleDir, sourcemap: 'external', logLevel: 'warning' })
      .catch(() => null); // esbuild has printed the errors (logLevel)
    if (!result) return 1;
  }
  writeFileSync(STAMP, `${new Date().toISOString()}\n`);
  return 0;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) process.exit(await build());
