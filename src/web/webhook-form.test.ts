import assert from 'node:assert/strict';
import { test } from 'node:test';
import { checkCreateWebhookForm, checkUpdateWebhookForm } from './webhook-form.js';

test('an empty form names the URL and the events, in the form order', () => {
  const checked = checkCreateWebhookForm({ url: '  ', description: '' });
  assert.equal(checked.ok, false);
  assert.deepEqual(!checked.ok && checked.errors, [
    { field: 'url', key: 'web.wh.error_url' },
    { field: 'events', key: 'web.wh.error_events' },
  ]);
});

test('the API schema decides: unknown events, long descriptions and long URLs are errors on their fields', () => {
  const checked = checkCreateWebhookForm({ url: `https://x.test/${'a'.repeat(2048)}`, description: 'd'.repeat(501), events: ['order.created', 'order.deleted'] });
  assert.equal(checked.ok, false);
  assert.deepEqual(!checked.ok && checked.errors.map((e) => e.field), ['url', 'description', 'events']);
  // What was posted is kept for the form, trimmed.
  assert.deepEqual(checked.input.events, ['order.created', 'order.deleted']);
});

test('a valid form becomes the API request body (one checkbox is a string, an empty description is left out)', () => {
  const created = checkCreateWebhookForm({ url: ' https://hooks.example.com/x ', description: '', events: 'certificate.issued' });
  assert.deepEqual(created.ok && created.body, { url: 'https://hooks.example.com/x', events: ['certificate.issued'] });
  // The edit form sends every field: an empty description clears it.
  const updated = checkUpdateWebhookForm({ url: 'https://hooks.example.com/y', description: '', events: ['order.created', 'order.state_changed'] });
  assert.deepEqual(updated.ok && updated.body, { url: 'https://hooks.example.com/y', events: ['order.created', 'order.state_changed'], description: null });
});
