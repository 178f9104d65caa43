import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { InvalidScope } from '../errors.js';
import { decodeBasicCredentials } from './client-authentication.js';
import { firstRepeated, MalformedFormError, parseForm, single } from './form-body.js';
import { grantScope } from './scope.js';

describe('form body', () => {
  it('keeps every value of a repeated name and decodes + and percent-escapes', () => {
    const params = parseForm('a=1&b=x+y%2Bz&a=2&flag&c=%C3%A9&&d=');
    assert.deepEqual([...params.entries()], [['a', ['1', '2']], ['b', ['x y+z']], ['flag', ['']], ['c', ['é']], ['d', ['']]]);
    assert.equal(firstRepeated(params, ['b', 'a']), 'a');
    assert.equal(firstRepeated(params, ['b', 'c']), null);
    assert.equal(single(params, 'd'), undefined, 'an empty value counts as omitted');
    assert.equal(single(params, 'missing'), undefined);
    assert.throws(() => parseForm('a=%E0%A4%A'), MalformedFormError);
    assert.deepEqual([...parseForm('').entries()], []);
  });
});

describe('Basic credentials', () => {
  const header = (raw: string) => `Basic ${Buffer.from(raw).toString('base64')}`;
  it('splits at the first colon and url-decodes both parts', () => {
    assert.deepEqual(decodeBasicCredentials(header('my%3Aid:s%3Ae+c%25')), { clientId: 'my:id', clientSecret: 's:e c%' });
    assert.deepEqual(decodeBasicCredentials(header('id:a:b')), { clientId: 'id', clientSecret: 'a:b' });
    assert.deepEqual(decodeBasicCredentials(`basic ${Buffer.from('id:s').toString('base64')}`), { clientId: 'id', clientSecret: 's' });
    assert.equal(decodeBasicCredentials('Bearer x'), null);
  });
});

describe('scope', () => {
  it('grants the client scopes without a request, a deduplicated subset otherwise', () => {
    assert.deepEqual(grantScope(undefined, ['a', 'b']), { scopes: ['a', 'b'], differsFromRequest: true });
    assert.deepEqual(grantScope('b', ['a', 'b']), { scopes: ['b'], differsFromRequest: false });
    assert.deepEqual(grantScope('b a b', ['a', 'b']), { scopes: ['b', 'a'], differsFromRequest: true });
    assert.throws(() => grantScope('c', ['a', 'b']), InvalidScope);
    assert.throws(() => grantScope('a  b', ['a', 'b']), InvalidScope);
    assert.throws(() => grantScope('a\\b', ['a\\b']), InvalidScope);
  });
});
