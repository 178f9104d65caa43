#!/usr/bin/env node
// Builds the package into dist/: ESM (dist/esm, jose and @noble/hashes left to the consumer's install) and CommonJS
// (dist/cjs, both bundled in so `require` works on every Node 20; @noble/hashes 2 is ESM only), declarations for both (tsc), and the
// command-line client (dist/cli/certdesk-client.js, ESM for Node). esbuild does the bundling.
import { spawnSync } from 'node:child_process';
import { chmodSync, cpSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import * as esbuild from 'esbuild';

const here = path.dirname(fileURLToPath(import.meta.url));
const pkg = path.resolve(here, '..');
const dist = path.join(pkg, 'dist');
process.chdir(pkg);
rmSync(dist, { recursive: true, force: true });

const common = { bundle: true, target: 'es2022', logLevel: 'warning', legalComments: 'none' };
// The browser entry: platform neutral, so a Node-only import fails the build instead of shipping.
await esbuild.build({ ...common, entryPoints: ['src/index.ts'], outfile: 'dist/esm/index.js', format: 'esm', platform: 'neutral', external: ['jose', '@noble/hashes'] });
await esbuild.build({ ...common, entryPoints: ['src/index.ts'], outfile: 'dist/cjs/index.js', format: 'cjs', platform: 'neutral', mainFields: ['module', 'main'] });
writeFileSync('dist/cjs/package.json', '{ "type": "commonjs" }\n');
await esbuild.build({
  ...common,
  entryPoints: ['src/cli/certdesk-client.ts'],
  outfile: 'dist/cli/certdesk-client.js',
  format: 'esm',
  platform: 'node',
  // The C2PA reader (9 MB of WebAssembly) stays in its package, loaded only by `verify`.
  external: ['jose', 'commander', '@noble/hashes', '@contentauth/c2pa-wasm'],
});
chmodSync('dist/cli/certdesk-client.js', 0o755);

const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
const types = spawnSync(process.execPath, [tsc, '-p', 'tsconfig.json'], { stdio: 'inherit' });
if (types.status !== 0) process.exit(types.status ?? 1);
// The same declarations serve the CommonJS build (its folder is "type": "commonjs").
for (const entry of readdirSync('dist/esm', { recursive: true })) {
  const name = String(entry);
  if (!name.endsWith('.d.ts')) continue;
  mkdirSync(path.dirname(path.join('dist/cjs', name)), { recursive: true });
  cpSync(path.join('dist/esm', name), path.join('dist/cjs', name));
}
