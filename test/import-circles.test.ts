/**
 * No import circles in src/, and no import that runs back up the layers (docs/testing.md, "Import
 * circles"; the layers are drawn in docs/architecture.md, "Layers"). dpdm reads every module with the
 * TypeScript compiler and resolves imports through tsconfig.json (`./x.js` → `x.ts`), so this runs in
 * `npm test` and in CI like any suite.
 *
 * Type-only imports COUNT: `transform: false` keeps `import type` edges. A circle made of types is
 * harmless at run time but is the same design fault (two modules that each need the other); the fix is
 * the same too (move the shared types to a module of their own). Dynamic `import()` counts as well.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { parseCircular, parseDependencyTree, prettyCircular, type DependencyTree } from 'dpdm';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/**
 * The layers of src/, highest first, each with the top-level folders (or files) of src/ it holds. A module
 * may import from its own layer and from any layer below it, never from one above: the entry points
 * compose, the composition root builds, delivery (web pages, then the HTTP application, then the token
 * service) calls down into the runtime parts, the domain rules and storage. Every top-level entry of src/
 * must be placed here: a new folder fails the test until it is given its layer.
 */
const LAYERS: ReadonlyArray<readonly [layer: string, members: readonly string[]]> = [
  ['entry points', ['cli']],
  ['composition root', ['app']],
  ['web pages', ['web']],
  ['HTTP application', ['http']],
  ['token service', ['oauth']],
  ['runtime parts', ['jobs', 'integrations', 'metrics', 'rate-limit', 'cluster', 'demo', 'http-headers']],
  ['domain', ['domain']],
  ['storage', ['storage']],
  ['foundation', ['contract', 'i18n', 'config.ts', 'clock.ts', 'paths.ts']],
];

/** The top-level entry of `src/` (or of `base`) a module id belongs to: `src/http/app.ts` → `http`. */
function topLevelOf(id: string, base: string): string | null {
  if (!id.startsWith(`${base}/`)) return null;
  return id.slice(base.length + 1).split('/')[0]!;
}

/**
 * Every import (type-only and dynamic included) from a module to a module of a higher layer, as
 * `from → to (lower layer → higher layer)`; and every top-level entry no layer holds. Test files are
 * left out: they are not part of the running service.
 */
function layerViolations(tree: DependencyTree, base: string, layers: typeof LAYERS): { upward: string[]; unplaced: string[] } {
  const rank = new Map<string, number>();
  layers.forEach(([, members], i) => members.forEach((m) => rank.set(m, i)));
  const upward: string[] = [];
  const unplaced = new Set<string>();
  for (const [id, deps] of Object.entries(tree)) {
    const from = topLevelOf(id, base);
    if (from === null || id.endsWith('.test.ts')) continue;
    const fromRank = rank.get(from);
    if (fromRank === undefined) {
      unplaced.add(from);
      continue;
    }
    for (const dep of deps ?? []) {
      const to = dep.id === null ? null : topLevelOf(dep.id, base);
      if (to === null || to === from) continue;
      const toRank = rank.get(to);
      if (toRank === undefined) unplaced.add(to);
      else if (toRank < fromRank) upward.push(`${id} → ${dep.id} (${layers[fromRank]![0]} → ${layers[toRank]![0]})`);
    }
  }
  return { upward: upward.sort(), unplaced: [...unplaced].sort() };
}

async function dependencyTree(context: string, pattern: string): Promise<DependencyTree> {
  return parseDependencyTree([pattern], { context, cwd: context, transform: false, tsconfig: path.join(context, 'tsconfig.json') });
}

describe('import circles and layers (dpdm)', () => {
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

  it('src/ imports only from its own layer or lower ones, type-only and dynamic imports included', async () => {
    const tree = await dependencyTree(root, 'src/**/*.ts');
    const { upward, unplaced } = layerViolations(tree, 'src', LAYERS);
    assert.deepEqual(unplaced, [], 'every top-level folder or file of src/ has a layer in LAYERS');
    assert.deepEqual(upward, [], `imports that run up the layers:\n${upward.join('\n')}`);
  });

  it('finds an import that runs up the layers, and a folder without a layer (the check is not vacuous)', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'certdesk-layers-'));
    dirs.push(dir);
    writeFileSync(path.join(dir, 'tsconfig.json'), JSON.stringify({ compilerOptions: { module: 'NodeNext', moduleResolution: 'NodeNext', strict: true } }));
    for (const folder of ['high', 'low', 'stray']) mkdirSync(path.join(dir, 'src', folder), { recursive: true });
    writeFileSync(path.join(dir, 'src/high/a.ts'), "import { b } from '../low/b.js';\nexport const a = b;\n");
    writeFileSync(path.join(dir, 'src/low/b.ts'), "export const b = 1;\n");
    writeFileSync(path.join(dir, 'src/low/c.ts'), "import type { a } from '../high/a.js';\nexport type C = typeof a;\n");
    writeFileSync(path.join(dir, 'src/low/d.ts'), "export const d = () => import('../high/a.js');\n");
    writeFileSync(path.join(dir, 'src/low/e.test.ts'), "import { a } from '../high/a.js';\nexport const e = a;\n");
    writeFileSync(path.join(dir, 'src/stray/f.ts'), "export const f = 1;\n");
    const layers = [['high', ['high']], ['low', ['low']]] as const;
    const { upward, unplaced } = layerViolations(await dependencyTree(dir, 'src/**/*.ts'), 'src', layers);
    assert.deepEqual(upward, ['src/low/c.ts → src/high/a.ts (low → high)', 'src/low/d.ts → src/high/a.ts (low → high)']);
    assert.deepEqual(unplaced, ['stray']);
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
