/** Entry points of src/web/client and their in-memory bundles (what the server running from sources serves). */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { bundleClientInMemory, bundleNameOf, clientEntryFiles } from './client-bundle.js';

test('entries are the top-level .ts files; shared modules in subfolders are bundled into them', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'certdesk-client-'));
  try {
    mkdirSync(path.join(dir, 'lib'));
    writeFileSync(path.join(dir, 'tsconfig.json'), '{ "compilerOptions": { "strict": true } }');
    writeFileSync(path.join(dir, 'lib', 'greeting.ts'), 'export function greeting(name: string): string { return "hello " + name; }\n');
    writeFileSync(path.join(dir, 'page.ts'), 'import { greeting } from "./lib/greeting.js";\ndocument.title = greeting("certdesk-shared-module");\n');
    writeFileSync(path.join(dir, 'page.test.ts'), 'export {};\n');
    writeFileSync(path.join(dir, 'globals.d.ts'), 'export {};\n');
    assert.deepEqual(clientEntryFiles(dir), ['page.ts']);
    assert.equal(bundleNameOf('page.ts'), 'page.js');

    const bundles = bundleClientInMemory(dir);
    assert.deepEqual([...bundles.keys()], ['page.js']);
    const code = bundles.get('page.js')!.toString('utf8');
    assert.match(code, /certdesk-shared-module/);
    assert.match(code, /hello /, 'the shared module is inside the bundle');
    // A classic script: no import/export statements left, nothing declared on the page's globals.
    assert.doesNotMatch(code, /\bimport\s*[{"]|\bexport\s*[{]/);
    assert.match(code.trim(), /^(?:"use strict";)?\(\(\)=>\{[\s\S]*\}\)\(\);$/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a type-valid but unresolvable import fails the bundling loudly', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'certdesk-client-'));
  try {
    writeFileSync(path.join(dir, 'tsconfig.json'), '{}');
    writeFileSync(path.join(dir, 'broken.ts'), 'import { nothing } from "./missing.js";\nconsole.log(nothing);\n');
    assert.throws(() => bundleClientInMemory(dir), /missing/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('the application’s own entries bundle', () => {
  const bundles = bundleClientInMemory();
  for (const name of ['app.js', 'order-write.js']) assert.ok((bundles.get(name)?.length ?? 0) > 500, name);
});
