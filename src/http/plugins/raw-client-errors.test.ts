import assert from 'node:assert/strict';
import { it } from 'node:test';
import { isHeadRequest } from './raw-client-errors.js';

const packet = (text: string) => ({ rawPacket: Buffer.from(text, 'latin1') });

it('reads the method of the refused request at the first request line of the chunk', () => {
  assert.equal(isHeadRequest(packet(`HEAD /v1/orders?q=${'%F0'.repeat(100)}`)), true);
  assert.equal(isHeadRequest(packet(`GET /v1/orders HTTP/1.1\r\naccept-language: ${'é'.repeat(100)}`)), false);
  assert.equal(isHeadRequest(packet('HEAD * HTTP/1.1\r\n')), true);
  assert.equal(isHeadRequest(packet('HEAD http://example.test/x HTTP/1.1\r\n')), true);
  // A target holds no space, so a GET whose target ends in "HEAD" is still a GET.
  assert.equal(isHeadRequest(packet('GET /xHEAD HTTP/1.1\r\n')), false);
});

it('finds a HEAD after the end of the previous request\'s body on a kept-alive connection', () => {
  // The fuzzer's case: a large POST answered early (415), the rest of its body read with the next request.
  assert.equal(isHeadRequest(packet(`${'x'.repeat(5000)}HEAD /v1/webhook-endpoints/0a?%ZZ=${'%F0%9F%98%80'.repeat(50)}`)), true);
  assert.equal(isHeadRequest(packet(`${'x'.repeat(5000)}POST /v1/uploads HTTP/1.1\r\n`)), false);
});

it('takes a chunk without a request line, or no chunk, as not a HEAD (the answer keeps its body)', () => {
  assert.equal(isHeadRequest(packet('%F0%9F%98%80'.repeat(100))), false);
  assert.equal(isHeadRequest({}), false);
});
