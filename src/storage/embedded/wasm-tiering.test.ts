import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { describe, it } from 'node:test';
import { compileWasmWithLiftoffOnly, LIFTOFF_ONLY_FLAGS } from './wasm-tiering.js';

describe('compileWasmWithLiftoffOnly', () => {
  it('sets --liftoff-only when the command line does not choose', () => {
    const set: string[] = [];
    assert.equal(compileWasmWithLiftoffOnly(['--enable-source-maps'], (f) => set.push(f)), true);
    assert.deepEqual(set, ['--liftoff-only --no-wasm-tier-up --no-wasm-dynamic-tiering']);
  });

  it("leaves the operator's own choice alone, either way and in either spelling", () => {
    for (const arg of ['--no-liftoff-only', '--liftoff-only', '--liftoff_only', '--no-liftoff_only']) {
      const set: string[] = [];
      assert.equal(compileWasmWithLiftoffOnly([arg], (f) => set.push(f)), false, arg);
      assert.deepEqual(set, []);
    }
  });

  it("names flags this Node's V8 knows (setFlagsFromString would ignore an unknown one silently)", () => {
    const known = spawnSync(process.execPath, [...LIFTOFF_ONLY_FLAGS, '-e', '0'], { encoding: 'utf8' });
    assert.equal(known.status, 0, known.stderr);
    const unknown = spawnSync(process.execPath, ['--liftoff-only-typo', '-e', '0'], { encoding: 'utf8' });
    assert.notEqual(unknown.status, 0);
  });
});
