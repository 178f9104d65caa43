import assert from 'node:assert/strict';
import { it } from 'node:test';
import { checkWebhookUrl, WebhookUrlRefusedError } from './webhook-url.js';

const strict = (answers: Record<string, string[]>) => ({ allowPrivate: false, resolve: async (host: string) => answers[host] ?? [] });

async function refused(url: string, options = strict({})): Promise<string> {
  const err = await checkWebhookUrl(url, options).then(() => null, (e: unknown) => e);
  assert.ok(err instanceof WebhookUrlRefusedError, `${url} should be refused`);
  return err.reason;
}

it('accepts https URLs of public hosts', async () => {
  const url = await checkWebhookUrl('https://hooks.example.com/in?x=1', strict({ 'hooks.example.com': ['93.184.216.34', '2606:2800:220:1::1'] }));
  assert.equal(url.href, 'https://hooks.example.com/in?x=1');
  assert.ok(await checkWebhookUrl('https://8.8.8.8/x', strict({})));
});

it('refuses http, credentials, fragments and what is no URL', async () => {
  assert.match(await refused('http://hooks.example.com/'), /https/);
  assert.match(await refused('https://user:pw@hooks.example.com/'), /credentials/);
  assert.match(await refused('https://hooks.example.com/#x'), /fragment/);
  assert.match(await refused('not a url'), /absolute/);
});

it('refuses literal and resolved non-public addresses (loopback, metadata, private, CGNAT, IPv4-mapped)', async () => {
  for (const literal of ['https://127.0.0.1/', 'https://169.254.169.254/latest/meta-data', 'https://10.1.2.3/', 'https://100.64.0.1/', 'https://[::1]/', 'https://[::ffff:127.0.0.1]/', 'https://[fd00:ec2::254]/']) {
    assert.match(await refused(literal), /non-public/, literal);
  }
  // A name with one private address among public ones is refused too.
  assert.match(await refused('https://mixed.example.com/', strict({ 'mixed.example.com': ['93.184.216.34', '10.0.0.5'] })), /private/);
  assert.match(await refused('https://nowhere.example.com/'), /resolve/);
});

it('allows http and any address with WEBHOOK_ALLOW_PRIVATE, still not credentials', async () => {
  assert.ok(await checkWebhookUrl('http://127.0.0.1:8080/hook', { allowPrivate: true }));
  assert.match(await refused('http://a:b@127.0.0.1/', { allowPrivate: true, resolve: async () => [] }), /credentials/);
});
