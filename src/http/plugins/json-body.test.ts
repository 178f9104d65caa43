import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { jsonDeeperThan } from './json-body.js';

describe('the JSON nesting bound', () => {
  it('counts arrays and objects inside one another, not brackets in strings', () => {
    assert.equal(jsonDeeperThan('{"a":[1,{"b":2}]}', 3), false);
    assert.equal(jsonDeeperThan('{"a":[1,{"b":[]}]}', 3), true);
    assert.equal(jsonDeeperThan(`${'['.repeat(64)}${']'.repeat(64)}`, 64), false);
    assert.equal(jsonDeeperThan(`${'['.repeat(65)}${']'.repeat(65)}`, 64), true);
    assert.equal(jsonDeeperThan(JSON.stringify({ s: '[[[[[[[[[[{{{{{{{{' }), 2), false);
    assert.equal(jsonDeeperThan(JSON.stringify({ s: 'quote \\" and backslash \\\\ then [[[[' }), 2), false);
    // Siblings do not add up: depth goes back down.
    assert.equal(jsonDeeperThan(`[${Array.from({ length: 1000 }, () => '[[]]').join(',')}]`, 3), false);
    // Malformed text is the parser's to refuse: the scan neither throws nor hangs.
    assert.equal(jsonDeeperThan('"unterminated [[[[', 1), false);
    assert.equal(jsonDeeperThan(']]]]}}}}', 1), false);
  });
});
