/**
 * What every answer of the API must look like, whatever was asked: never a 5xx, always JSON, and one of
 * the interface's shapes: the operation's documented schema for that status, `{"detail": string}`, the
 * 422 `{"detail": [{type, loc, msg, input}]}`, or an RFC 6749 body on the token endpoint.
 *
 * @example
 * assertAnswerShape(openapi, { method: 'GET', operation, exactRoute: true }, res.statusCode, res.headers, res.body);
 */
import assert from 'node:assert/strict';
import type { OpenApiValidator } from '../helpers/openapi.js';
import type { Operation } from './openapi-operations.js';

export const TOKEN_PATH = '/oauth2/token';

export interface AnsweredRequest {
  method: string;
  /** The operation the request was generated from. */
  operation: Operation;
  url: string;
  /** True when method and path are the operation's own (so its documented responses apply). */
  exactRoute: boolean;
}

type Headers = Record<string, string | string[] | number | undefined>;

function assertDetailString(body: unknown): void {
  assert.ok(body && typeof body === 'object' && !Array.isArray(body), 'body is an object');
  assert.deepEqual(Object.keys(body), ['detail'], 'the only member is detail');
  assert.equal(typeof (body as { detail: unknown }).detail, 'string', 'detail is a string');
  assert.ok(((body as { detail: string }).detail).length > 0, 'detail is not empty');
}

/** FastAPI's HTTPValidationError: a non-empty list of {type, loc, msg, input} (ctx optional). */
export function assertValidationBody(body: unknown): void {
  assert.ok(body && typeof body === 'object' && !Array.isArray(body), 'body is an object');
  assert.deepEqual(Object.keys(body), ['detail']);
  const items = (body as { detail: unknown }).detail;
  assert.ok(Array.isArray(items) && items.length > 0, '422 detail is a non-empty array');
  for (const item of items as Array<Record<string, unknown>>) {
    assert.equal(typeof item.type, 'string');
    assert.ok(Array.isArray(item.loc) && item.loc.length > 0 && item.loc.every((p) => typeof p === 'string' || Number.isInteger(p)), 'loc is a path');
    assert.equal(typeof item.msg, 'string');
    assert.ok('input' in item, 'input is present');
    for (const key of Object.keys(item)) assert.ok(['type', 'loc', 'msg', 'input', 'ctx'].includes(key), `unexpected member ${key}`);
  }
}

/** RFC 6749 section 5.1 (success) and 5.2 (error). */
function assertTokenEndpointBody(status: number, body: unknown): void {
  assert.ok(body && typeof body === 'object' && !Array.isArray(body), 'body is an object');
  const b = body as Record<string, unknown>;
  if (status === 200) {
    assert.equal(typeof b.access_token, 'string');
    assert.match(String(b.token_type), /^bearer$/i);
    assert.ok(Number.isInteger(b.expires_in) && (b.expires_in as number) > 0);
    return;
  }
  assert.equal(typeof b.error, 'string', 'RFC 6749 error code');
  assert.match(b.error as string, /^[\x20-\x21\x23-\x5B\x5D-\x7E]+$/, 'error code characters (RFC 6749 5.2)');
  if ('error_description' in b) assert.equal(typeof b.error_description, 'string');
  for (const key of Object.keys(b)) assert.ok(['error', 'error_description', 'error_uri'].includes(key), `unexpected member ${key}`);
}

/** The documented operation a method and URL land on exactly (path parameters: one non-empty segment), if any. */
function operationAt(openapi: OpenApiValidator, method: string, url: string): string | undefined {
  // Where the request lands: dot segments resolved as app.inject and every HTTP client resolve them.
  const path = new URL(url.split('?')[0]!, 'http://fuzz.invalid').pathname;
  const paths = ((openapi.document as { paths?: Record<string, Record<string, { operationId?: string }>> }).paths ?? {});
  for (const [template, item] of Object.entries(paths)) {
    const pattern = new RegExp(`^${template.split(/\{[^}]+\}/).map((part) => part.replace(/[.*+?^$()|[\]\\]/g, '\\$&')).join('[^/]+')}$`);
    const operationId = pattern.test(path) ? item[method.toLowerCase()]?.operationId : undefined;
    if (operationId) return operationId;
  }
  return undefined;
}

const essence = (type: string) => type.split(';')[0]!.trim().toLowerCase();

/** The one media type an operation documents for a status, if it documents exactly one. */
function documentedMediaType(openapi: OpenApiValidator, operationId: string, status: number): string | undefined {
  const responses = (openapi.operation(operationId).responses ?? {}) as Record<string, { content?: Record<string, unknown> }>;
  const types = Object.keys(responses[String(status)]?.content ?? {});
  return types.length === 1 ? types[0] : undefined;
}

function documentedStatuses(openapi: OpenApiValidator, operationId: string): string[] {
  return Object.keys((openapi.operation(operationId).responses ?? {}) as Record<string, unknown>);
}

/**
 * Throws unless the answer has one of the interface's shapes. Returns 'undocumented' when an operation's
 * own route answered a status its document does not list (the body was still checked as `detail`).
 */
export function assertAnswerShape(openapi: OpenApiValidator, req: AnsweredRequest, status: number, headers: Headers, text: string): 'ok' | 'undocumented' {
  assert.ok(status < 500, `status ${status}`);
  assert.ok(status >= 200, `status ${status}`);
  if (req.method === 'HEAD') {
    assert.equal(text, '', 'HEAD answers carry no body');
    return 'ok';
  }
  // The CORS preflight of a public read route (the JWKS, public certificates): 204, no body, any origin.
  if (req.method === 'OPTIONS' && status === 204) {
    assert.equal(text, '', 'a preflight answer carries no body');
    assert.equal(headers['access-control-allow-origin'], '*', 'a preflight answer allows any origin');
    assert.match(String(headers['access-control-allow-methods'] ?? ''), /\bGET\b/, 'a preflight answer allows GET');
    return 'ok';
  }
  // A conditional GET whose entity tag still holds (public certificates): 304, no body.
  if (req.method === 'GET' && status === 304) {
    assert.equal(text, '', '304 carries no body');
    assert.ok(headers.etag, '304 names its ETag');
    return 'ok';
  }
  // A documented success that is not JSON (the transparency log's checkpoint, key and tiles): the
  // documented media type, and a body (tlog-tiles: a missing tile is 404, never an empty 200).
  const documentedOperation = req.exactRoute ? req.operation.operationId : operationAt(openapi, req.method, req.url);
  const mediaType = documentedOperation && status < 300 ? documentedMediaType(openapi, documentedOperation, status) : undefined;
  if (mediaType && !mediaType.startsWith('application/json')) {
    assert.equal(essence(String(headers['content-type'] ?? '')), essence(mediaType), `content type is the documented ${mediaType}`);
    assert.ok(text.length > 0 || Number(headers['content-length'] ?? 0) > 0, 'a documented success carries a body');
    return 'ok';
  }
  assert.match(String(headers['content-type'] ?? ''), /^application\/json\b/, 'content type is JSON');
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    assert.fail(`body is not JSON: ${text.slice(0, 200)}`);
  }
  // Node's parser refuses an oversized head (431, or 414 for the request line) before any route is
  // known, so even the token endpoint's path gets the service-wide {"detail"} (test/abuse/wire.test.ts
  // checks its Connection: close).
  if (status === 431 || status === 414) {
    assertDetailString(body);
    return 'ok';
  }
  const { operation } = req;
  if (req.exactRoute && operation.path === TOKEN_PATH && req.method === 'POST') {
    assertTokenEndpointBody(status, body);
    return 'ok';
  }
  // Whatever the method, the token endpoint's own path may refuse a request the RFC 6749 way
  // (e.g. an undecodable form body is refused before the method is looked at).
  const onTokenPath = req.url.split('?')[0] === TOKEN_PATH;
  if (onTokenPath && status >= 400 && body && typeof body === 'object' && 'error' in body) {
    assertTokenEndpointBody(status, body);
    return 'ok';
  }
  // A request bent to another method may land on another documented operation of the same path
  // (GET and POST /v1/webhook-endpoints): then that operation's document applies.
  const operationId = req.exactRoute ? operation.operationId : operationAt(openapi, req.method, req.url);
  if (status === 422) assertValidationBody(body);
  else if (!(operationId && status < 300)) assertDetailString(body);
  if (operationId) {
    const documented = documentedStatuses(openapi, operationId);
    if (!documented.includes(String(status))) return 'undocumented';
    openapi.assertResponse(operationId, status, body);
  }
  return 'ok';
}
