#!/usr/bin/env node
// Builds (scripts/build.mjs: the server and the browser bundles) only when something the build reads is
// newer than the last build, so a second `npm install` or `npm start` does not spend seconds recompiling
// what is already there. `npm run build` always builds.
import { existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { build, STAMP } from './build.mjs';

// src/ holds the browser code too (src/web/client); the verify page's bundle also reads the client
// package's transparency-log verifier (clients/typescript/src/tlog).
// Not package-lock.json: every `npm install` rewrites it (same bytes, new mtime).
const INPUTS = ['src', 'clients/typescript/src/tlog', 'tsconfig.json', 'tsconfig.build.json'];

function newestMtime(entry) {
  if (!existsSync(entry)) return 0;
  const stat = statSync(entry);
  if (!stat.isDirectory()) return stat.mtimeMs;
  let newest = stat.mtimeMs; // a deleted file changes its directory's mtime
  for (const child of readdirSync(entry)) newest = Math.max(newest, newestMtime(path.join(entry, child)));
  return newest;
}

const builtAt = existsSync(STAMP) ? statSync(STAMP).mtimeMs : 0;
const changedAt = Math.max(...INPUTS.map(newestMtime));
if (builtAt > 0 && changedAt <= builtAt) process.exit(0);

process.stdout.write('certdesk: compiling src/ into dist/ (sources changed since the last build)\n');
process.exit(await build());
