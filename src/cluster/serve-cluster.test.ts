import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { WORKER_SEMI_SPACE_MB, workerExecArgv } from './serve-cluster.js';

describe('workerExecArgv', () => {
  it("adds the young-generation size to the primary's options", () => {
    assert.deepEqual(workerExecArgv(['--enable-source-maps'], ''), ['--enable-source-maps', `--max-semi-space-size=${WORKER_SEMI_SPACE_MB}`]);
  });

  it("keeps the operator's own size, given as an option or in NODE_OPTIONS, in either spelling", () => {
    assert.deepEqual(workerExecArgv(['--max-semi-space-size=64'], ''), ['--max-semi-space-size=64']);
    assert.deepEqual(workerExecArgv(['--max_semi_space_size=8'], ''), ['--max_semi_space_size=8']);
    assert.deepEqual(workerExecArgv([], '--inspect --max-semi-space-size=16'), []);
  });
});
