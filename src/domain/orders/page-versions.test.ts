import assert from 'node:assert/strict';
import { it } from 'node:test';
import fc from 'fast-check';
import { PageVersions, parseVersionEntries } from './page-versions.js';

/** The text of `entries` as the first read's SQL writes it (order-listing.repository.ts): lengths in code points. */
function formatVersionEntries(entries: ReadonlyArray<readonly [string, string]>): string {
  return entries.map(([id, version]) => `${[...id].length}:${id}${version}`).join('\n');
}

const version = fc.tuple(fc.nat(), fc.nat(), fc.nat()).map(([xmin, block, offset]) => `${xmin}:(${block},${offset})`);
// Any text PostgreSQL can hold (no NUL), colons, line feeds, digits and characters outside the BMP included.
const orderId = fc.oneof(fc.string({ unit: 'grapheme' }), fc.string({ unit: 'binary' }), fc.constantFrom('12:3', '\n', ':\n:', '𝄞', '7'))
  .map((s) => s.replaceAll('\u0000', ''));

it('property: the page versions text parses back to its entries, whatever the order ids', () => {
  fc.assert(
    fc.property(fc.array(fc.tuple(orderId, version), { maxLength: 30 }), (entries) => {
      assert.deepEqual(parseVersionEntries(formatVersionEntries(entries)), entries);
    }),
    { numRuns: 500 },
  );
});

it('refuses a malformed text loudly instead of making up rows', () => {
  for (const bad of ['x:abc1:(0,1)', '5:ab', ':a1:(0,1)', '-1:a1:(0,1)']) assert.throws(() => parseVersionEntries(bad), /malformed page versions/);
});

it('gives the keyset micros to the row at position limit only, and parses the rows once', () => {
  const text = formatVersionEntries([['a', '1:(0,1)'], ['b:\n𝄞', '2:(0,2)'], ['c', '3:(0,3)']]);
  const stats = { total_in_progress: 0, total_certified: 0, total_action_required: 0, total_reviewed: 0, total_failed: 0, total_unsupported: 0, total_orders: 0 };
  const first = new PageVersions(stats, '[]', text, '42', 2, null);
  assert.deepEqual(first.rows, [
    { order_id: 'a', version: '1:(0,1)', creation_micros: null },
    { order_id: 'b:\n𝄞', version: '2:(0,2)', creation_micros: '42' },
    { order_id: 'c', version: '3:(0,3)', creation_micros: null },
  ]);
  assert.equal(first.rows, first.rows);
  assert.equal(first.key, `[]\n${text}`);
  assert.deepEqual(new PageVersions(stats, '[]', '', null, 2, null).rows, []);
});
