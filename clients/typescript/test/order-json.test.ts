/**
 * splitPage (the export path of `orders list --ndjson`): the order texts it splits out of a page parse to
 * exactly the orders JSON.parse finds, whatever the strings hold (escaped quotes, backslashes, brackets)
 * and whatever whitespace the page has; a malformed page is refused.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { oneLine, splitPage } from '../src/order-json.js';

const tricky = [
  { order_id: 'a"b', order_title: 'ends with a backslash \\', tags: ['[x]', '{y}', 'q"\\"'], n: -1.5e3, ok: true, none: null },
  { order_id: 'plain', nested: { deep: [[1, 2], { k: '}]' }], empty: {}, list: [] }, note: 'line\nbreak\ttab \u2028' },
  { order_id: 'é 漢字 😀', annotations: [{ id: 'ann', bodies: [{ value: '\\\\"' }] }] },
];

describe('splitPage', () => {
  for (const [name, text] of [
    ['compact', JSON.stringify({ order_stats: { total_orders: 3 }, next_page_token: 'tok', orders: tricky, order_previews: null })],
    ['indented, array first', JSON.stringify({ orders: tricky, order_previews: null, project_names: ['P'], next_page_token: null }, null, 2)],
  ] as const) {
    it(`splits the orders of a ${name} page and parses the other members`, () => {
      const expected = JSON.parse(text) as Record<string, unknown>;
      const { items, members } = splitPage(text, 'orders');
      assert.deepEqual(items.map((i) => JSON.parse(i)), tricky);
      const { orders: _orders, ...rest } = expected;
      assert.deepEqual(members, rest);
      for (const item of items.map(oneLine)) {
        assert.ok(!item.includes('\n'), 'one line');
      }
      assert.deepEqual(items.map(oneLine).map((i) => JSON.parse(i)), tricky);
    });
  }

  it('handles an empty array and a null one', () => {
    assert.deepEqual(splitPage('{"orders":[],"next_page_token":null}', 'orders'), { items: [], members: { next_page_token: null } });
    assert.deepEqual(splitPage('{"orders":null,"order_previews":[ {"a":1} , {"b":[2]} ]}', 'order_previews'), { items: ['{"a":1}', '{"b":[2]}'], members: { orders: null } });
  });

  it('refuses malformed pages', () => {
    for (const bad of ['', '[]', '{"orders":[{"a":"unterminated}]}', '{"orders":[{"a":1}', '{"orders":[{"a":1} {"b":2}]}', '{orders:[]}']) {
      assert.throws(() => splitPage(bad, 'orders'), SyntaxError, JSON.stringify(bad));
    }
  });
});
