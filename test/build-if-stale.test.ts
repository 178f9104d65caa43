/**
 * `npm start` and `npm install` run scripts/build-if-stale.mjs: it builds only when src/ (browser code in
 * src/web/client included) or a tsconfig is newer than the last build. Run in a scratch project without TypeScript installed, so any attempt to
 * compile shows as a failure.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'node:test';

const SCRIPT = path.resolve('scripts/build-if-stale.mjs');

test('build-if-stale skips an up-to-date build and compiles after a change to browser code', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'certdesk-build-'));
  try {
    mkdirSync(path.join(dir, 'src', 'web', 'client'), { recursive: true });
    mkdirSync(path.join(dir, 'dist'));
    const files = ['src/a.ts', 'src/web/client/page.ts', 'tsconfig.json', 'tsconfig.build.json'];
    for (const f of files) writeFileSync(path.join(dir, f), '{}');
    const past = new Date(Date.now() - 60_000);
    for (const f of [...files, 'src/web/client', 'src/web', 'src']) utimesSync(path.join(dir, f), past, past);
    writeFileSync(path.join(dir, 'dist/.build-stamp'), 'built\n');

    const upToDate = spawnSync(process.execPath, [SCRIPT], { cwd: dir, encoding: 'utf8' });
    assert.equal(upToDate.status, 0, upToDate.stderr);
    assert.equal(upToDate.stdout, '', 'nothing compiled');

    const future = new Date(Date.now() + 60_000);
    // An edited browser entry point (nested two folders down) makes the build stale.
    utimesSync(path.join(dir, 'src/web/client/page.ts'), future, future);
    const stale = spawnSync(process.execPath, [SCRIPT], { cwd: dir, encoding: 'utf8' });
    assert.match(stale.stdout, /compiling src\/ into dist\//);
    assert.notEqual(stale.status, 0, 'tried to run tsc, which this scratch project lacks');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
