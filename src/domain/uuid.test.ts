import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isUuid, normalizeUuid, UUID_PATTERN } from './uuid.js';

describe('uuid', () => {
  it('accepts hyphenated UUIDs in any letter case and nothing else', () => {
    assert.equal(isUuid('0f8fad5b-d9cb-469f-a165-70867728950e'), true);
    assert.equal(isUuid('0F8FAD5B-D9CB-469F-A165-70867728950E'), true);
    for (const bad of ['', '0f8fad5bd9cb469fa16570867728950e', '0f8fad5b-d9cb-469f-a165-70867728950', ' 0f8fad5b-d9cb-469f-a165-70867728950e', '0f8fad5b-d9cb-469f-a165-70867728950g', "x' OR 1=1 --"]) {
      assert.equal(isUuid(bad), false, bad);
    }
    assert.equal(normalizeUuid('0F8FAD5B-D9CB-469F-A165-70867728950E'), '0f8fad5b-d9cb-469f-a165-70867728950e');
    assert.equal(normalizeUuid('nope'), null);
    assert.ok(new RegExp(UUID_PATTERN).test('0f8fad5b-d9cb-469f-a165-70867728950e'), 'the schema pattern is the same check');
  });
});
