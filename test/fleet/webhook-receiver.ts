/**
 * The fleet test's webhook receiver on 127.0.0.1: answers 200 to every POST (after `setDelay` ms, so
 * deliveries can be caught in flight) and keeps each request's `webhook-id` and body.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  webhookId: string;
  body: string;
  at: number;
}

export interface WebhookReceiver {
  url(path: string): string;
  setDelay(ms: number): void;
  /** Every request received, grouped by `webhook-id` (more than one: the same message sent again). */
  byWebhookId(): Map<string, Received[]>;
  close(): Promise<void>;
}

export async function startWebhookReceiver(): Promise<WebhookReceiver> {
  const received: Received[] = [];
  let delayMs = 0;
  const timers = new Set<NodeJS.Timeout>();
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({ webhookId: String(req.headers['webhook-id'] ?? ''), body: Buffer.concat(chunks).toString('utf8'), at: Date.now() });
      const timer = setTimeout(() => {
        timers.delete(timer);
        res.writeHead(200).end('ok');
      }, delayMs);
      timers.add(timer);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: (path) => `http://127.0.0.1:${port}${path}`,
    setDelay(ms) {
      delayMs = ms;
    },
    byWebhookId() {
      const map = new Map<string, Received[]>();
      for (const r of received) map.set(r.webhookId, [...(map.get(r.webhookId) ?? []), r]);
      return map;
    },
    async close() {
      for (const t of timers) clearTimeout(t);
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
