/**
 * Sends one signed webhook request (DECISIONS 10, docs/webhooks.md): POST of the event's JSON with the
 * Standard Webhooks headers, signed by the `standardwebhooks` package (one `v1,` signature per secret:
 * two during a rotation). Redirects are never followed (a 3xx is a failure), the whole exchange has a
 * deadline (15 s), at most RESPONSE_EXCERPT_BYTES of the answer are read (then the connection is dropped:
 * a 1 GB body costs nothing), and every connection goes through the address guard unless private
 * addresses are allowed.
 */
import http from 'node:http';
import https from 'node:https';
import { isIP } from 'node:net';
import { performance } from 'node:perf_hooks';
import { Webhook } from 'standardwebhooks';
import { hostOf } from '../../domain/webhooks/webhook-url.js';
import { firstRefused, guardedLookup } from './guarded-lookup.js';

/** The bound of the stored response excerpt (and of what is read of the response at all). */
export const RESPONSE_EXCERPT_BYTES = 1024;
export const DEFAULT_DELIVERY_TIMEOUT_MS = 15_000;

export interface WebhookRequest {
  url: string;
  /** The event id: `webhook-id`. */
  messageId: string;
  body: string;
  /** `whsec_` secrets; the first is the current one. */
  secrets: readonly string[];
}

export interface WebhookResponse {
  /** null when no answer came (network error, timeout, refused address). */
  status: number | null;
  latencyMs: number;
  /** The start of the body (decoded as UTF-8), or the error. */
  excerpt: string;
}

export interface SenderOptions {
  timeoutMs?: number;
  allowPrivate?: boolean;
  userAgent?: string;
}

/** The Standard Webhooks headers of a message, signed now. */
export function signedHeaders(messageId: string, body: string, secrets: readonly string[], now = new Date()): Record<string, string> {
  const signature = secrets.map((secret) => new Webhook(secret).sign(messageId, now, body)).join(' ');
  return { 'webhook-id': messageId, 'webhook-timestamp': String(Math.floor(now.getTime() / 1000)), 'webhook-signature': signature };
}

export class WebhookSender {
  private readonly timeoutMs: number;
  private readonly allowPrivate: boolean;
  private readonly agents: { http: http.Agent; https: https.Agent };

  constructor(private readonly options: SenderOptions = {}) {
    this.timeoutMs = options.timeoutMs ?? DEFAULT_DELIVERY_TIMEOUT_MS;
    this.allowPrivate = options.allowPrivate ?? false;
    const lookup = this.allowPrivate ? undefined : guardedLookup();
    // Keep-alive agents: a busy endpoint reuses its connections. The guard runs for each new connection.
    this.agents = { http: new http.Agent({ keepAlive: true, lookup }), https: new https.Agent({ keepAlive: true, lookup }) };
  }

  async send(request: WebhookRequest): Promise<WebhookResponse> {
    const started = performance.now();
    const elapsed = () => performance.now() - started;
    let url: URL;
    try {
      url = new URL(request.url);
    } catch {
      return { status: null, latencyMs: 0, excerpt: 'invalid URL' };
    }
    if (!this.allowPrivate) {
      // A literal address is never looked up, so the guard checks it here.
      const host = hostOf(url);
      const refused = url.protocol !== 'https:' ? new Error('webhooks are delivered over https only') : isIP(host) ? firstRefused(host, [host]) : null;
      if (refused) return { status: null, latencyMs: 0, excerpt: refused.message };
    }
    const transport = url.protocol === 'https:' ? https : http;
    const agent = url.protocol === 'https:' ? this.agents.https : this.agents.http;
    const headers = {
      'content-type': 'application/json',
      'user-agent': this.options.userAgent ?? 'certdesk-webhooks',
      ...signedHeaders(request.messageId, request.body, request.secrets),
    };
    return new Promise<WebhookResponse>((resolve) => {
      let settled = false;
      const finish = (result: WebhookResponse) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        resolve(result);
      };
      const req = transport.request(url, { method: 'POST', agent, headers: { ...headers, 'content-length': Buffer.byteLength(request.body) } }, (res) => {
        const status = res.statusCode ?? null;
        const chunks: Buffer[] = [];
        let size = 0;
        const done = () => {
          finish({ status, latencyMs: elapsed(), excerpt: Buffer.concat(chunks).subarray(0, RESPONSE_EXCERPT_BYTES).toString('utf8') });
        };
        res.on('data', (chunk: Buffer) => {
          chunks.push(chunk);
          size += chunk.length;
          if (size >= RESPONSE_EXCERPT_BYTES) {
            done();
            res.destroy(); // the rest is never read
          }
        });
        res.on('end', done);
        res.on('error', done);
        res.on('close', done);
      });
      const timer = setTimeout(() => {
        req.destroy(new Error(`no answer within ${this.timeoutMs} ms`));
      }, this.timeoutMs);
      req.on('error', (err) => finish({ status: null, latencyMs: elapsed(), excerpt: `${err.message}`.slice(0, RESPONSE_EXCERPT_BYTES) }));
      req.end(request.body);
    });
  }

  close(): void {
    this.agents.http.destroy();
    this.agents.https.destroy();
  }
}
