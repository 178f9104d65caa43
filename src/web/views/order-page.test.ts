import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { OrderT } from '../../contract/schemas.js';
import { translatorFor } from '../web-context.js';
import { orderPage } from './order-page.js';

test('the failed items table lists each annotation id once', () => {
  const order = {
    order_id: 'o-1', username: 'U', email: 'u@x.test', order_state: 'Action Required', order_title: 'T', asset_id: 'a', asset_name: 'a.png',
    asset_last_modified_timestamp: '1', ordered_by: null, creation_time: '2026-01-01T00:00:00.000Z', asset_preview_url: null,
    analysis_list: [], tags: [], confidence: 0, remediation: 0, annotations: [], project: null, reviewed_by: null, review_timestamp: null, layers_info: [],
    analysis_failed_items: [{ type: 'region', name: 'Sky', storage_path: 'p.png', ai_likelihood: 0.9, annotation_ids: ['ann-1', 'ann-2'], annotation_id: 'ann-1' }],
  } satisfies OrderT;
  const body = String(orderPage({ lang: 'en', t: translatorFor('en'), session: null, url: '/orders/o-1' } as never, order));
  const item = /<ol class="failed-items">[\s\S]*?<\/ol>/.exec(body)![0];
  assert.match(item, /<th scope="row">Annotations<\/th><td>ann-1, ann-2<\/td>/);
  for (const label of ['Type', 'Name', 'Storage path', 'AI likelihood']) assert.ok(item.includes(`<th scope="row">${label}</th>`), label);
});
