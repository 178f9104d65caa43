#!/usr/bin/env node
// Runs every *.test.ts under src/ and test/, and the TypeScript client's unit tests (clients/typescript/test/),
// with node's test runner (TypeScript through tsx). The client's tests against the served app are in test/client/.
// Extra arguments are passed through (e.g. a file path to run one suite).
import { spawnSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';

function findTests(dir) {
  const out = [];
  for (const entry of readdirSync(dir)) {
    const full = path.join(dir, entry);
    if (statSync(full).isDirectory()) out.push(...findTests(full));
    else if (entry.endsWith('.test.ts')) out.push(full);
  }
  return out;
}

const args = process.argv.slice(2);
const files = args.some((a) => a.endsWith('.ts')) ? [] : [...findTests('src'), ...findTests('test'), ...findTests('clients/typescript/test')].sort();
const result = spawnSync(
  process.execPath,
  ['--import', 'tsx', '--test', '--test-concurrency=2', '--test-reporter=spec', ...args, ...files],
  { stdio: 'inherit', env: { ...process.env, CERTDESK_ENV: process.env.CERTDESK_ENV ?? 'test' } },
);
process.exit(result.status ?? 1);
