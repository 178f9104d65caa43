import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { describe, it } from 'node:test';
import { WORKER_SEMI_SPACE_MB, workerExecArgv } from './serve-cluster.js';

describe('workerExecArgv (the flags of serve --workers N)', () => {
  it("adds a capped young generation to the primary's flags", () => {
    assert.deepEqual(workerExecArgv(['--enable-source-maps']), ['--enable-source-maps', `--max-semi-space-size=${WORKER_SEMI_SPACE_MB}`]);
  });

  it("leaves the operator's own size alone, in either spelling", () => {
    for (const arg of ['--max-semi-space-size=16', '--max_semi_space_size=1']) assert.deepEqual(workerExecArgv([arg]), [arg]);
  });

  it('names a flag node accepts, and V8 applies it', () => {
    const run = spawnSync(process.execPath, [...workerExecArgv([]), '-p', "require('v8').getHeapSpaceStatistics().find((s) => s.space_name === 'new_space').space_size"], { encoding: 'utf8' });
    assert.equal(run.status, 0, run.stderr);
    // Two semi-spaces at most (V8 rounds to pages): far below the 32 MB of the default.
    assert.ok(Number(run.stdout) <= 2 * WORKER_SEMI_SPACE_MB * 1024 * 1024 + 1024 * 1024, run.stdout);
  });
});
