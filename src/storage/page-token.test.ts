import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { InvalidPageTokenError, PageTokenCodec, type PageTokenBinding } from './page-token.js';

const codec = new PageTokenCodec(Buffer.alloc(32, 3));
const binding: PageTokenBinding = { organizationId: 'org-1', userId: 'user-1', projectFilter: 'All Projects' };
const problemOf = (fn: () => unknown) => {
  try {
    fn();
    return 'accepted';
  } catch (err) {
    assert.ok(err instanceof InvalidPageTokenError);
    return err.problem;
  }
};

describe('PageTokenCodec', () => {
  it('round-trips any position exactly (microseconds as integers, any order id) in a URL-safe token', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: -(2n ** 62n), max: 2n ** 62n }), fc.string({ minLength: 1, maxLength: 200 }), (micros, orderId) => {
        const token = codec.sign({ creationTimeMicros: micros, orderId }, binding);
        assert.match(token, /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{43}$/);
        assert.equal(encodeURIComponent(token), token);
        assert.deepEqual(codec.verify(token, binding), { creationTimeMicros: micros, orderId });
      }),
    );
  });

  it('binds the organization, the caller and the project filter', () => {
    const token = codec.sign({ creationTimeMicros: 1n, orderId: 'a' }, binding);
    assert.equal(problemOf(() => codec.verify(token, { ...binding, organizationId: 'org-2' })), 'mismatch');
    assert.equal(problemOf(() => codec.verify(token, { ...binding, userId: 'user-2' })), 'mismatch');
    assert.equal(problemOf(() => codec.verify(token, { ...binding, projectFilter: 'Personal Certificates' })), 'mismatch');
  });

  it('refuses a token of another key and any single changed character', () => {
    const token = codec.sign({ creationTimeMicros: 1767225600123456n, orderId: 'acme-0001' }, binding);
    assert.equal(problemOf(() => new PageTokenCodec(Buffer.alloc(32, 4)).verify(token, binding)), 'signature');
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    for (let i = 0; i < token.length; i++) {
      if (token[i] === '.') continue;
      const replacement = alphabet[(alphabet.indexOf(token[i]!) + 1) % alphabet.length]!;
      const changed = token.slice(0, i) + replacement + token.slice(i + 1);
      assert.notEqual(problemOf(() => codec.verify(changed, binding)), 'accepted', `position ${i}`);
    }
  });

  it('refuses garbage as malformed without throwing anything else', () => {
    fc.assert(fc.property(fc.string({ maxLength: 300 }), (s) => assert.notEqual(problemOf(() => codec.verify(s, binding)), 'accepted')));
    for (const s of ['', '.', 'a.', '.a', 'a.b.c', 'é.é', 'a'.repeat(3000)]) assert.equal(problemOf(() => codec.verify(s, binding)), 'malformed', s);
  });
});
