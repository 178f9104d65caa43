import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { boundedInput, boundedText, MAX_INPUT_CHARS } from './bounded-input.js';
import { unstorableCharacter, unstorableTextIssues, withoutUnstorable } from './unstorable-text.js';

describe('text that cannot be stored', () => {
  it('finds NUL and unpaired surrogates, and nothing else', () => {
    assert.equal(unstorableCharacter('a\u0000'), 'U+0000');
    assert.equal(unstorableCharacter('\uD800x'), 'U+D800');
    assert.equal(unstorableCharacter('x\uDFFF'), 'U+DFFF');
    assert.equal(unstorableCharacter('\uDBFF'), 'U+DBFF');
    for (const fine of ['', 'plain', '😀 a pair', '\t\n\r\u0001\u001b\u007f\u0085\u2028\uFFFE', 'é', '\uD83D\uDE00']) assert.equal(unstorableCharacter(fine), null, JSON.stringify(fine));
    assert.equal(withoutUnstorable('a\u0000b\uD800c😀'), 'a\uFFFDb\uFFFDc😀');
  });

  it('walks a whole value: object keys, array items, nested; with each location', () => {
    const issues = unstorableTextIssues({ ok: 'x', list: ['fine', 'bad\u0000'], nested: { deeper: { v: '\uDC00' } }, 'key\u0000': 1, n: 5, none: null }, ['body']);
    assert.deepEqual(
      issues.map((i) => [i.loc, i.input, i.vars]),
      [
        [['body', 'list', 1], 'bad\u0000', { character: 'U+0000' }],
        [['body', 'nested', 'deeper', 'v'], '\uDC00', { character: 'U+DC00' }],
        [['body', 'key\u0000'], 'key\u0000', { character: 'U+0000' }],
      ],
    );
    assert.deepEqual(unstorableTextIssues('\u0000', ['query', 'q']).map((i) => i.loc), [['query', 'q']]);
    assert.equal(unstorableTextIssues(Array.from({ length: 100 }, () => '\u0000'), ['body']).length, 20, 'stops after 20 findings');
  });

  it('walks 100,000 levels without recursion', () => {
    let value: unknown = '\u0000';
    for (let i = 0; i < 100_000; i++) value = [value];
    assert.equal(unstorableTextIssues(value, ['body']).length, 1);
  });
});

describe('the bounded echo of a 422', () => {
  it('keeps short values exactly and cuts long ones to a prefix', () => {
    assert.equal(boundedInput('short'), 'short');
    assert.deepEqual(boundedInput({ a: [1, 'x'] }), { a: [1, 'x'] });
    assert.equal(boundedInput('y'.repeat(10_000)), `${'y'.repeat(MAX_INPUT_CHARS)}…`);
    // Never half a surrogate pair.
    const emoji = `${'y'.repeat(MAX_INPUT_CHARS - 1)}😀tail`;
    assert.equal(boundedText(emoji), `${'y'.repeat(MAX_INPUT_CHARS - 1)}…`);
    assert.deepEqual(boundedInput(Array.from({ length: 30 }, (_, i) => i)), [...Array.from({ length: 20 }, (_, i) => i), '…']);
    assert.deepEqual(boundedInput({ a: { b: { c: { d: { e: 1 } } } } }), { a: { b: { c: { d: '…' } } } });
  });
});
