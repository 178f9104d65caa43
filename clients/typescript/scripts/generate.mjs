#!/usr/bin/env node
// `npm run generate -w @certdesk/client`: builds the certdesk application in-process (the repository's
// scripts/openapi-document.ts, on an in-memory database), reads the document it serves and writes the
// generated types. With a file argument, reads a dumped document instead: `node scripts/generate.mjs openapi.json`.
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { generateTypes, GENERATED_TYPES_PATH } from './generate-types.mjs';

const root = fileURLToPath(new URL('../../..', import.meta.url));
let text;
if (process.argv[2]) {
  text = readFileSync(process.argv[2], 'utf8');
} else {
  const dump = spawnSync(process.execPath, ['--import', 'tsx', 'scripts/openapi-document.ts'], {
    cwd: root,
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  if (dump.status !== 0) process.exit(dump.status ?? 1);
  text = dump.stdout;
}
writeFileSync(GENERATED_TYPES_PATH, await generateTypes(JSON.parse(text)));
console.error(`wrote ${fileURLToPath(GENERATED_TYPES_PATH)}`);
