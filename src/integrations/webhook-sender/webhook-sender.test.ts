/**
 * The connect-time guard (DNS rebinding): whatever the endpoint resolved to when saved, each connection
 * looks the name up again and refuses non-public addresses; literal addresses are refused before connecting.
 */
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { it } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { guardedLookup, RefusedAddressError } from './guarded-lookup.js';
import { signedHeaders, WebhookSender } from './webhook-sender.js';

function lookupWith(addresses: string[]) {
  return guardedLookup((_host, _options, callback) => callback(null, addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }))));
}

function run(lookup: ReturnType<typeof guardedLookup>, all: boolean): Promise<{ err: unknown; result: unknown }> {
  return new Promise((resolve) => (lookup as unknown as (h: string, o: object, cb: (err: unknown, result: unknown) => void) => void)('hooks.example.com', { all }, (err, result) => resolve({ err, result })));
}

it('refuses a name that resolves to loopback, metadata, private, CGNAT or IPv4-mapped addresses', async () => {
  for (const address of ['127.0.0.1', '169.254.169.254', '10.0.0.1', '100.64.0.1', '::ffff:127.0.0.1', '::1']) {
    for (const all of [true, false]) {
      const { err } = await run(lookupWith(['93.184.216.34', address]), all);
      assert.ok(err instanceof RefusedAddressError, `${address} (all: ${all})`);
    }
  }
});

it('passes public addresses through in both callback forms', async () => {
  const many = await run(lookupWith(['93.184.216.34']), true);
  assert.equal(many.err, null);
  assert.deepEqual(many.result, [{ address: '93.184.216.34', family: 4 }]);
  const one = await run(lookupWith(['93.184.216.34']), false);
  assert.equal(one.err, null);
  assert.equal(one.result, '93.184.216.34');
});

it('never connects to a private target unless private addresses are allowed', async () => {
  let hits = 0;
  const server = http.createServer((_req, res) => {
    hits++;
    res.end('ok');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  const strict = new WebhookSender({ timeoutMs: 5000 });
  const open = new WebhookSender({ timeoutMs: 5000, allowPrivate: true });
  try {
    const request = { messageId: 'msg_1', body: '{}', secrets: [`whsec_${Buffer.alloc(32, 1).toString('base64')}`] };
    for (const url of [`https://127.0.0.1:${port}/`, `http://127.0.0.1:${port}/`, `https://localhost:${port}/`, `https://[::ffff:127.0.0.1]:${port}/`]) {
      const res = await strict.send({ ...request, url });
      assert.equal(res.status, null, url);
      assert.match(res.excerpt, /public addresses|https only/, url);
    }
    assert.equal(hits, 0);
    const ok = await open.send({ ...request, url: `http://127.0.0.1:${port}/` });
    assert.equal(ok.status, 200);
    assert.equal(hits, 1);
  } finally {
    strict.close();
    open.close();
    server.closeAllConnections();
    await new Promise<void>((r) => server.close(() => r()));
  }
});

it('signs so that the standardwebhooks verifier accepts each secret', () => {
  const secrets = [`whsec_${Buffer.alloc(32, 7).toString('base64')}`, `whsec_${Buffer.alloc(32, 9).toString('base64')}`];
  const body = '{"type":"order.created"}';
  const headers = signedHeaders('msg_2', body, secrets);
  assert.equal(headers['webhook-signature']!.split(' ').length, 2);
  for (const secret of secrets) assert.deepEqual(new Webhook(secret).verify(body, headers), { type: 'order.created' });
});
