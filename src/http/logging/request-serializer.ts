/**
 * The request as the log shows it: Fastify's default fields, with credentials in the query string
 * redacted (redact-url.ts). Headers are not logged at all.
 */
import { redactUrl } from './redact-url.js';

/** What the serializer reads: Fastify passes its request object (typed as the raw one by Fastify). */
interface LoggedRequest {
  method?: string;
  url?: string;
  host?: string;
  ip?: string;
  socket?: { remotePort?: number } | null;
}

export function serializeRequest(req: LoggedRequest): Record<string, unknown> {
  return {
    method: req.method,
    url: typeof req.url === 'string' ? redactUrl(req.url) : req.url,
    host: req.host,
    remoteAddress: req.ip,
    remotePort: req.socket?.remotePort,
  };
}
