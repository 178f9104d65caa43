#!/usr/bin/env node
// A runnable certdesk webhook receiver (docs/webhooks.md): verifies each request with the
// `standardwebhooks` package, answers 2xx at once, and ignores a webhook-id it has already seen
// (deliveries are at least once).
//
//   WEBHOOK_SECRET=whsec_... PORT=8787 node examples/webhook-receiver.mjs
//
// certdesk delivers only to https URLs on public addresses: put this behind a TLS proxy, or run certdesk
// with WEBHOOK_ALLOW_PRIVATE=true while developing.
import http from 'node:http';
import { Webhook } from 'standardwebhooks';

const secret = process.env.WEBHOOK_SECRET;
if (!secret) {
  console.error('set WEBHOOK_SECRET to the endpoint secret (whsec_...)');
  process.exit(2);
}
const webhook = new Webhook(secret);
const seen = new Set(); // a real receiver keeps this in its database
const MAX_BODY = 64 * 1024; // certdesk payloads are thin (well under 1 KiB)

http
  .createServer((req, res) => {
    const chunks = [];
    let size = 0;
    req.on('data', (chunk) => {
      size += chunk.length;
      if (size > MAX_BODY) req.destroy();
      else chunks.push(chunk);
    });
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      let event;
      try {
        // Checks the signature (any of the space-separated `v1,` entries) and that the timestamp is recent.
        event = webhook.verify(body, req.headers);
      } catch {
        res.writeHead(400).end('bad signature');
        return;
      }
      res.writeHead(204).end();
      const id = req.headers['webhook-id'];
      if (seen.has(id)) return;
      seen.add(id);
      // Thin payload: read the rest through the API (GET /v1/orders/{order_id}, ...).
      console.log(id, event.type, JSON.stringify(event.data));
    });
  })
  .listen(Number(process.env.PORT ?? 8787), () => console.log(`listening on :${process.env.PORT ?? 8787}`));
