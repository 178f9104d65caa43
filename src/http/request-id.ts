/**
 * The id of a request (`X-Request-Id` on every response, `reqId` in the logs): the caller's own when it
 * looks like an id (a proxy or client correlating its logs with ours), else a new random one.
 */
import { randomUUID } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';

const REQUEST_ID = /^[A-Za-z0-9._-]{8,128}$/;

export function requestIdOf(headers: IncomingHttpHeaders): string {
  const incoming = headers['x-request-id'];
  return typeof incoming === 'string' && REQUEST_ID.test(incoming) ? incoming : randomUUID();
}
