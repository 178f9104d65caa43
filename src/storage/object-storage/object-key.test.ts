import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { encodeKeyPath, isKeyOfOrganization, isValidObjectKey, keyOwnershipCheck, OBJECT_KEY_PATTERN } from './object-key.js';

const pattern = new RegExp(OBJECT_KEY_PATTERN);
/** Keys drawn mostly from the key alphabet, with the characters that make a key invalid mixed in. */
const keyLike = fc.string({
  unit: fc.oneof(
    { weight: 8, arbitrary: fc.constantFrom(...'abcXYZ019_-'.split('')) },
    { weight: 3, arbitrary: fc.constantFrom('/', '.') },
    { weight: 1, arbitrary: fc.constantFrom(' ', '\\', '\n', 'é', '%', '?', '\u0000') },
  ),
  maxLength: 40,
});

describe('object keys', () => {
  it('isValidObjectKey agrees with OBJECT_KEY_PATTERN (the schemas’ rule) on every input', () => {
    fc.assert(fc.property(keyLike, (key) => assert.equal(isValidObjectKey(key), pattern.test(key), JSON.stringify(key))), { numRuns: 20_000 });
    fc.assert(fc.property(fc.string({ maxLength: 30 }), (key) => assert.equal(isValidObjectKey(key), pattern.test(key))));
  });

  it('agrees at the length limit (512) and on the cases the rule exists for', () => {
    for (const length of [511, 512, 513]) {
      const key = `a${'b'.repeat(length - 1)}`;
      assert.equal(isValidObjectKey(key), pattern.test(key), `length ${length}`);
    }
    assert.equal(isValidObjectKey(`a${'b'.repeat(511)}`), true);
    assert.equal(isValidObjectKey(`a${'b'.repeat(512)}`), false);
    for (const bad of ['', '.hidden', 'a/.hidden', 'a//b', 'a/', '/abs', '../up', 'a/../b', 'a b']) assert.equal(isValidObjectKey(bad), false, bad);
    for (const good of ['a', 'orgs/x/a.png', 'a/b.c/d', 'a..b', '_x/y-z']) assert.equal(isValidObjectKey(good), true, good);
  });

  it('keyOwnershipCheck is isKeyOfOrganization for one organization', () => {
    const org = 'AC3E0000-0000-4000-8000-000000000001';
    const own = keyOwnershipCheck(org);
    const keys = ['orgs/ac3e0000-0000-4000-8000-000000000001/a.png', 'orgs/ac3e0000-0000-4000-8000-000000000002/a.png', 'orgs/ac3e0000-0000-4000-8000-000000000001/.x', 'a.png'];
    for (const key of keys) assert.equal(own(key), isKeyOfOrganization(key, org), key);
    assert.equal(own(keys[0]!), true);
  });

  it('encodeKeyPath keeps valid keys as they are and encodes any other key so that each segment decodes back', () => {
    assert.equal(encodeKeyPath('orgs/ab/uploads/x.png'), 'orgs/ab/uploads/x.png');
    assert.equal(encodeKeyPath('a b/c?d'), 'a%20b/c%3Fd');
    fc.assert(fc.property(keyLike, (key) => {
      const encoded = encodeKeyPath(key);
      if (isValidObjectKey(key)) assert.equal(encoded, key);
      assert.equal(encoded.split('/').map(decodeURIComponent).join('/'), key);
      assert.ok(!/[?#\s]/.test(encoded), encoded);
    }));
  });
});
