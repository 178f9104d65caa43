/**
 * Answers for what never becomes a Fastify request: a request Node's HTTP parser refuses (headers too
 * large, a request line too long, bad framing, a timeout) and a CONNECT, which Node hands to a separate
 * event and otherwise drops without a word. Same `{"detail": ...}` shape as every other error, in the
 * language the request asked for when its headers could be read, and `Connection: close`, because after
 * a framing error the rest of the connection cannot be trusted.
 */
import type { IncomingMessage, Server } from 'node:http';
import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import { negotiateLanguage, translate, type Language, type MessageKey } from '../../i18n/index.js';
import { BASELINE_SECURITY_HEADERS } from './security-headers.js';

function writeDetail(socket: Duplex, status: number, key: MessageKey, lang: Language, extra: Record<string, string> = {}, withBody = true): void {
  const body = JSON.stringify({ detail: translate(lang, key) });
  const headers: Record<string, string> = {
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': String(Buffer.byteLength(body)),
    'Content-Language': lang,
    Connection: 'close',
    ...BASELINE_SECURITY_HEADERS,
    ...extra,
  };
  const head = Object.entries(headers).map(([k, v]) => `${k}: ${v}\r\n`).join('');
  socket.end(`HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}\r\n${head}\r\n${withBody ? body : ''}`);
}

/**
 * The start of a request line: a method, a space and the start of a request target (origin form `/`,
 * asterisk form `*`, absolute form `scheme://`). A request target holds no space, so inside one request
 * line it only matches at the method.
 */
const REQUEST_LINE_START = /(GET|HEAD|POST|PUT|PATCH|DELETE|OPTIONS|TRACE) (?:\/|\*|[A-Za-z][A-Za-z0-9+.-]*:\/\/)/;

/**
 * Whether the refused request was a HEAD: its answer has the headers of the GET answer but no body (RFC
 * 9110 9.3.2); a client reading a body there would take it for data after `Connection: close`.
 *
 * `rawPacket` is the chunk the parser was reading, not the request: on a kept-alive connection it may
 * begin with the end of the previous request's body (an early answer, such as a 415, leaves the rest of
 * the body to be read and dropped), the refused request following it (found by the OpenAPI fuzzer: a
 * 1.1 MB POST answered 415, then a HEAD with a 93 KB request line got a body). So the method is read at
 * the first request line the chunk holds; a chunk that holds none (a request line longer than a chunk
 * that began in an earlier one) is taken as not a HEAD.
 */
export function isHeadRequest(err: { rawPacket?: unknown }): boolean {
  const packet = err.rawPacket;
  if (!Buffer.isBuffer(packet)) return false;
  return REQUEST_LINE_START.exec(packet.toString('latin1'))?.[1] === 'HEAD';
}

/** Whether the parser gave up inside the request line (the URI), not in a header field. */
function overflowedInRequestLine(err: { rawPacket?: unknown }): boolean {
  const packet = err.rawPacket;
  if (!Buffer.isBuffer(packet)) return false;
  const firstLineEnd = packet.indexOf('\r\n');
  return firstLineEnd === -1 || firstLineEnd > 8 * 1024;
}

function statusOf(err: NodeJS.ErrnoException & { rawPacket?: unknown }): { status: number; key: MessageKey } {
  if (err.code === 'ERR_HTTP_REQUEST_TIMEOUT') return { status: 408, key: 'errors.request_timeout' };
  if (err.code === 'HPE_HEADER_OVERFLOW') {
    return overflowedInRequestLine(err) ? { status: 414, key: 'errors.uri_too_long' } : { status: 431, key: 'errors.header_fields_too_large' };
  }
  return { status: 400, key: 'errors.bad_request' };
}

/** Fastify's `clientErrorHandler`: the parser refused the request; its headers are not available. */
export function clientErrorHandler(err: NodeJS.ErrnoException, socket: Duplex): void {
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  if (!socket.writable) {
    socket.destroy(err);
    return;
  }
  const { status, key } = statusOf(err);
  writeDetail(socket, status, key, 'en', {}, !isHeadRequest(err as { rawPacket?: unknown }));
}

/** Answers CONNECT (this is not a proxy) with 405 instead of closing the connection silently. */
export function answerConnectRequests(server: Server): void {
  server.on('connect', (request: IncomingMessage, socket: Duplex) => {
    socket.on('error', () => undefined);
    // RFC 9110 15.5.6: a 405 lists the allowed methods; for a CONNECT target there are none.
    writeDetail(socket, 405, 'errors.method_not_allowed', negotiateLanguage(request.headers), { Allow: '' });
  });
}
