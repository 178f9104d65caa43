import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import { describe, it } from 'node:test';
import { readStream } from './pipeline.js';

const chunks = (...parts: string[]) => Readable.from(parts.map((p) => Buffer.from(p)));

describe('readStream (the analysis job reading an asset)', () => {
  it('reads an object of the announced size into one buffer of that size', async () => {
    const bytes = await readStream(chunks('abc', 'defg', 'h'), 8);
    assert.equal(bytes.toString(), 'abcdefgh');
    assert.equal(bytes.length, 8);
  });

  it('reads whole an object shorter or longer than announced, or of unknown size', async () => {
    assert.equal((await readStream(chunks('abc', 'de'), 10)).toString(), 'abcde');
    assert.equal((await readStream(chunks('abc', 'defg', 'hij'), 5)).toString(), 'abcdefghij');
    assert.equal((await readStream(chunks('abcdef', 'gh'), 3)).toString(), 'abcdefgh');
    assert.equal((await readStream(chunks('ab', 'c'))).toString(), 'abc');
    assert.equal((await readStream(chunks(), 4)).length, 0);
    assert.equal((await readStream(Readable.from(['text ', 'chunks']), 11)).toString(), 'text chunks');
  });
});
