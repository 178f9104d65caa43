import assert from 'node:assert/strict';
import { test } from 'node:test';
import { OneTimeSecrets } from './one-time-secrets.js';

test('a ticket gives its value once, only to its owner, only before it expires', () => {
  let now = 1_000;
  const store = new OneTimeSecrets<string>({ ttlMs: 100, now: () => now });
  const ticket = store.put('session-a', 'secret');
  assert.match(ticket, /^[A-Za-z0-9_-]{32}$/);
  assert.equal(store.take('session-b', ticket), undefined, 'another session gets nothing');
  assert.equal(store.take('session-a', ticket), 'secret');
  assert.equal(store.take('session-a', ticket), undefined, 'a second look gets nothing');
  const late = store.put('session-a', 'late');
  now += 100;
  assert.equal(store.take('session-a', late), undefined, 'expired');
});
