import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { describe, it } from 'node:test';
import { HEAP_GROWING_PERCENT, limitHeapGrowth, limitYoungGeneration, releaseYoungGeneration, V8_SEMI_SPACE_GROWTH_FACTOR } from './heap-growth.js';

describe('limitHeapGrowth', () => {
  it('sets the growing factor when the command line does not', () => {
    const set: string[] = [];
    assert.equal(limitHeapGrowth(['--enable-source-maps'], (f) => set.push(f)), true);
    assert.deepEqual(set, [`--heap-growing-percent=${HEAP_GROWING_PERCENT}`]);
  });

  it("leaves the operator's own choice alone, in either spelling", () => {
    for (const arg of ['--heap-growing-percent=50', '--heap_growing_percent=300', '--heap-growing-percent']) {
      const set: string[] = [];
      assert.equal(limitHeapGrowth([arg], (f) => set.push(f)), false, arg);
      assert.deepEqual(set, []);
    }
  });

  it("names a flag this Node's V8 knows (setFlagsFromString would ignore an unknown one silently)", () => {
    const known = spawnSync(process.execPath, [`--heap-growing-percent=${HEAP_GROWING_PERCENT}`, '-e', '0'], { encoding: 'utf8' });
    assert.equal(known.status, 0, known.stderr);
    // The check above is only worth something if an unknown flag fails the same way.
    const unknown = spawnSync(process.execPath, ['--heap-growing-percentage-typo=1', '-e', '0'], { encoding: 'utf8' });
    assert.notEqual(unknown.status, 0);
  });
});

describe('limitYoungGeneration', () => {
  it('stops the semi-spaces growing when the command line gives no size', () => {
    const set: string[] = [];
    assert.equal(limitYoungGeneration(['--enable-source-maps'], (f) => set.push(f)), true);
    assert.deepEqual(set, ['--semi-space-growth-factor=1']);
  });

  it("keeps the start small under a maximum chosen on the command line too (an operator's, or a cluster worker's)", () => {
    for (const arg of ['--max-semi-space-size=4', '--max_semi_space_size=16']) {
      const set: string[] = [];
      assert.equal(limitYoungGeneration([arg], (f) => set.push(f)), true, arg);
      assert.deepEqual(set, ['--semi-space-growth-factor=1']);
    }
  });

  it("leaves the operator's own growth factor alone, in either spelling", () => {
    for (const arg of ['--semi-space-growth-factor=2', '--semi_space_growth_factor=4']) {
      const set: string[] = [];
      assert.equal(limitYoungGeneration([arg], (f) => set.push(f)), false, arg);
      assert.deepEqual(set, []);
    }
  });

  it("gives V8 its own growth factor back once serving, only if it was taken", () => {
    const set: string[] = [];
    releaseYoungGeneration(true, (f) => set.push(f));
    releaseYoungGeneration(false, (f) => set.push(f));
    assert.deepEqual(set, [`--semi-space-growth-factor=${V8_SEMI_SPACE_GROWTH_FACTOR}`]);
  });

  it('lets the new space grow again after release, up to the maximum', () => {
    const script = `const v8 = require('v8'); v8.setFlagsFromString('--semi-space-growth-factor=1');
      const churn = () => { const keep = []; for (let i = 0; i < 2e6; i++) { keep.push({ i, s: 'x' + i }); if (keep.length > 50000) keep.length = 0; } };
      const size = () => v8.getHeapSpaceStatistics().find((s) => s.space_name === 'new_space').space_size;
      churn(); const pinned = size();
      v8.setFlagsFromString('--semi-space-growth-factor=${V8_SEMI_SPACE_GROWTH_FACTOR}'); churn();
      process.stdout.write(JSON.stringify([pinned, size()]));`;
    const run = spawnSync(process.execPath, ['--max-semi-space-size=16', '-e', script], { encoding: 'utf8' });
    assert.equal(run.status, 0, run.stderr);
    const [pinned, released] = JSON.parse(run.stdout) as [number, number];
    // Relative, not a fixed size: Node 24's V8 sometimes grows a pinned new space a step on a loaded machine.
    assert.ok(pinned * 2 <= released, `released new space ${released} bytes, pinned ${pinned}`);
  });

  it('keeps the new space at a fraction of what it grows to without the flag, through an allocation-heavy start', () => {
    const newSpaceAfterAllocating = (flag: string): number => {
      const script = `${flag}
        const keep = []; for (let i = 0; i < 2e6; i++) { keep.push({ i, s: 'x' + i }); if (keep.length > 50000) keep.length = 0; }
        process.stdout.write(String(require('v8').getHeapSpaceStatistics().find((s) => s.space_name === 'new_space').space_size));`;
      const run = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8' });
      assert.equal(run.status, 0, run.stderr);
      return Number(run.stdout);
    };
    // Measured against this Node's own growth (32 MB on Node 20, 64 MB on Node 24), not a fixed size: with
    // the flag it stays at 2 MB, but Node 24's V8 sometimes grows it a step or two on a loaded machine
    // (4.75 and 8 MB seen; a fixed 4 MB bound failed the Node 24 CI pass).
    const grown = newSpaceAfterAllocating('');
    const kept = newSpaceAfterAllocating("require('v8').setFlagsFromString('--semi-space-growth-factor=1');");
    assert.ok(kept <= grown / 4, `new space ${kept} bytes with the flag, ${grown} without`);
  });
});
