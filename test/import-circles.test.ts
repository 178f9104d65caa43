/**
 * No import circles in src/ (docs/testing.md, "Import circles"). dpdm reads every module with the
 * TypeScript compiler and resolves imports through tsconfig.json (`./x.js` → `x.ts`), so this runs in
 * `npm test` and in CI like any suite.
 *
 * Type-only imports COUNT: `transform: false` keeps `import type` edges. A circle made of types is
 * harmless at run time but is the same design fault (two modules that each need the other); the fix is
 * the same too (move the shared types to a module of their own). Dynamic `import()` counts as well.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { parseCircular, parseDependencyTree, prettyCircular, type DependencyTree } from 'dpdm';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

async function dependencyTree(context: string, pattern: string): Promise<DependencyTree> {
  return parseDependencyTree([pattern], { context, cwd: context, transform: false, tsconfig: path.join(context, 'tsconfig.json') });
}

describe('import circles (dpdm)', () => {
  const dirs: string[] = [];
  after(() => {
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  it('src/ has none, type-only imports and dynamic imports included', async () => {
    const tree = await dependencyTree(root, 'src/**/*.ts');
    const modules = Object.keys(tree).filter((id) => id.startsWith('src/'));
    assert.ok(modules.length > 200, `dpdm read ${modules.length} modules of src/`);
    // Every relative import resolved to a file: an unresolved one would hide its edge (and any circle).
    const unresolved = modules.flatMap((id) => (tree[id] ?? []).filter((d) => d.request.startsWith('.') && d.id === null).map((d) => `${id} → ${d.request}`));
    assert.deepEqual(unresolved, []);
    const circles = parseCircular(tree);
    assert.deepEqual(circles, [], `import circles in src/:\n${prettyCircular(circles)}`);
  });

  it('finds a circle made only of type imports (the check is not vacuous)', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'certdesk-circles-'));
    dirs.push(dir);
    writeFileSync(path.join(dir, 'tsconfig.json'), JSON.stringify({ compilerOptions: { module: 'NodeNext', moduleResolution: 'NodeNext', strict: true } }));
    writeFileSync(path.join(dir, 'a.ts'), "import type { B } from './b.js';\nexport interface A { b: B }\n");
    writeFileSync(path.join(dir, 'b.ts'), "import type { A } from './a.js';\nexport interface B { a?: A }\n");
    writeFileSync(path.join(dir, 'c.ts'), "import type { A } from './a.js';\nexport const c = (a: A) => a;\n");
    const circles = parseCircular(await dependencyTree(dir, '**/*.ts'));
    assert.equal(circles.length, 1);
    assert.deepEqual([...circles[0]!].sort(), ['a.ts', 'b.ts']);
  });
});
