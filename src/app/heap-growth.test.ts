import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { describe, it } from 'node:test';
import { HEAP_GROWING_PERCENT, limitHeapGrowth } from './heap-growth.js';

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
