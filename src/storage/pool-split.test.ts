import assert from 'node:assert/strict';
import { it } from 'node:test';
import fc from 'fast-check';
import { splitPoolSize } from './database.js';

it("splits a process's connection budget between the main pool and the listing's hot reads, never above it", () => {
  fc.assert(
    fc.property(fc.integer({ min: 1, max: 200 }), (poolSize) => {
      const { main, hot } = splitPoolSize(poolSize);
      assert.ok(main >= 1 && hot >= 1);
      // One connection cannot be split: two is the least a server process holds.
      assert.equal(main + hot, Math.max(2, poolSize));
      assert.ok(hot <= main || poolSize < 3);
    }),
  );
  assert.deepEqual(splitPoolSize(10), { main: 7, hot: 3 });
});
