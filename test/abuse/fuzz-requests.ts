/**
 * Generated HTTP requests for the OpenAPI fuzzer: for one documented operation, its parameters from
 * their schemas (valid, boundary, hostile, with control characters and NUL, duplicated, missing), sometimes
 * another method or a bent path, assorted credentials, language and content headers, and bodies: shaped by
 * the schema, nested far too deep, multipart forms whole, cut at any byte or mis-framed, and junk.
 *
 * @example
 * const arb = fuzzRequest(operations, { document, pool, credentials, addresses });
 */
import fc from 'fast-check';
import { multipartBody } from './multipart-bodies.js';
import { fillPath, resolveRef, type JsonSchema, type Operation } from './openapi-operations.js';
import { encodedJunk, hostileText, jsonFromSchema, parameterValue, percentEncode, type WireValue } from './schema-arbitraries.js';
import { TOKEN_PATH } from './answer-shapes.js';

export interface FuzzRequest {
  operation: Operation;
  method: string;
  url: string;
  exactRoute: boolean;
  headers: Record<string, string | string[]>;
  payload?: string;
  remoteAddress: string;
  /** Which kind of credential was sent (for the status table). */
  credential: string;
}

export interface FuzzWorld {
  document: JsonSchema;
  /** Strings that mean something to the service: ids of both tenants, filter literals, page tokens. */
  pool: string[];
  /** Credential name → Authorization header value (valid tokens of several users and scopes). */
  bearers: Record<string, string>;
  /** API clients that exist: id and secret. */
  clients: Array<{ id: string; secret: string }>;
}

/** Header values are latin-1 without CR/LF (anything else cannot travel in HTTP/1.1 at all). */
export function headerSafe(value: string): string {
  return value.replace(/[^\t\x20-\x7e\x80-\xff]/g, '?');
}

const wire = (v: WireValue) => ('raw' in v ? v.raw : percentEncode(v.text));

const OTHER_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS', 'TRACE', 'PROPFIND', 'SEARCH'];

const pathBend: fc.Arbitrary<(path: string) => string> = fc.oneof(
  { weight: 14, arbitrary: fc.constant((p: string) => p) },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      (p: string) => `${p}/`,
      (p: string) => p.replace(/\/([^/]*)$/, '//$1'),
      (p: string) => `${p}/extra`,
      (p: string) => p.toUpperCase(),
      (p: string) => `${p};x=1`,
      (p: string) => `${p}%00`,
      (p: string) => `${p}%2F`,
      (p: string) => `${p}.json`,
    ),
  },
);

const languageJunk = fc.oneof(
  fc.constantFrom('fr', 'de-CH', 'ja', 'es;q=0.5', 'en-US,fr;q=0.9', '*', 'xx', 'fr;q=abc', 'q=1', ',,,', ';;', 'de;q=0', 'zh-Hant-TW', 'EN', 'a'.repeat(5000)),
  hostileText.map(headerSafe),
);

const contentTypes = fc.constantFrom(
  'application/json',
  'application/json; charset=utf-16',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=x',
  'text/plain',
  'application/xml',
  '',
  ';;;',
  'application/json; charset=',
  'application/vnd.api+json',
);

function credential(world: FuzzWorld): fc.Arbitrary<{ name: string; value: string | string[] | null }> {
  const names = Object.keys(world.bearers);
  const anyBearer = fc.constantFrom(...names);
  return fc.oneof(
    { weight: 3, arbitrary: fc.constant({ name: 'none', value: null }) },
    { weight: 6, arbitrary: anyBearer.map((name) => ({ name, value: world.bearers[name]! })) },
    {
      weight: 3,
      arbitrary: fc.oneof(
        anyBearer.map((n) => world.bearers[n]!.replace('Bearer ', '')),
        anyBearer.map((n) => world.bearers[n]!.replace('Bearer', 'bearer')),
        anyBearer.map((n) => `${world.bearers[n]!}x`),
        anyBearer.map((n) => world.bearers[n]!.replace(/.$/, (c) => (c === 'A' ? 'B' : 'A'))),
        anyBearer.map((n) => `${world.bearers[n]!} extra`),
        anyBearer.map((n) => world.bearers[n]!.replace('Bearer ', 'Bearer   ')),
        anyBearer.map((n) => {
          const [h, p, s] = world.bearers[n]!.slice(7).split('.');
          return `Bearer ${h}.${Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(p!, 'base64url').toString()), scope: 'enterprise-api-access/write' })).toString('base64url')}.${s}`;
        }),
        anyBearer.map((n) => `Bearer ${Buffer.from('{"alg":"none"}').toString('base64url')}.${world.bearers[n]!.split('.')[1]}.`),
        fc.constantFrom('Bearer', 'Bearer ', 'Basic Zm9vOmJhcg==', 'Basic', 'Digest x', 'Bearer a.b.c', 'Bearer ....', `Bearer ${'A'.repeat(9000)}`, 'Bearer null'),
        hostileText.map((t) => headerSafe(`Bearer ${t}`)),
      ).map((value) => ({ name: 'garbage', value })),
    },
    {
      weight: 1,
      arbitrary: fc.tuple(anyBearer, fc.constantFrom(...names, 'garbage')).map(([a, b]) => ({
        name: 'duplicate',
        value: [world.bearers[a]!, world.bearers[b] ?? 'Bearer garbage'],
      })),
    },
  );
}

/** application/x-www-form-urlencoded bodies for the token endpoint (RFC 6749 section 4.4). */
function tokenForm(world: FuzzWorld): fc.Arbitrary<string> {
  const client = fc.constantFrom(...world.clients);
  const field = (name: string, values: fc.Arbitrary<string>) =>
    fc.oneof({ weight: 1, arbitrary: fc.constant([] as Array<[string, string]>) }, { weight: 5, arbitrary: values.map((v) => [[name, v]] as Array<[string, string]>) }, {
      weight: 1,
      arbitrary: fc.tuple(values, values).map(([a, b]) => [[name, a], [name, b]] as Array<[string, string]>),
    });
  return fc
    .tuple(
      client,
      fc.constantFrom<'right' | 'wrong' | 'junk'>('right', 'right', 'wrong', 'junk'),
      hostileText,
      fc.constantFrom('client_credentials', 'client_credentials', 'authorization_code', 'password', 'refresh_token', 'CLIENT_CREDENTIALS', ''),
      fc.option(fc.constantFrom('enterprise-api-access/read', 'enterprise-api-access/write', 'enterprise-api-access/read enterprise-api-access/write', 'openid', '', ' '), { nil: undefined }),
    )
    .chain(([c, secretKind, junk, grant, scope]) =>
      fc
        .tuple(
          field('grant_type', fc.constant(grant)),
          field('client_id', fc.oneof(fc.constant(c.id), hostileText)),
          field('client_secret', fc.constant(secretKind === 'right' ? c.secret : secretKind === 'wrong' ? `${c.secret}x` : junk)),
          scope === undefined ? fc.constant([] as Array<[string, string]>) : field('scope', fc.constant(scope)),
        )
        .map((parts) => new URLSearchParams(parts.flat()).toString()),
    );
}

function body(world: FuzzWorld, operation: Operation): fc.Arbitrary<{ contentType: string | null; payload: string } | null> {
  const junk = fc.oneof(
    fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v) ?? 'null'),
    fc.constantFrom('{', '{"a":', '[1,2', '\u0000', 'a=b&a=c&a', '%ZZ=%', '{"__proto__":{"x":1}}', `{"a":${'['.repeat(5000)}`, 'x'.repeat(1_100_000)),
    hostileText,
  );
  const generic = fc.tuple(contentTypes, junk).map(([contentType, payload]) => ({ contentType, payload }));
  const choices: Array<fc.WeightedArbitrary<{ contentType: string | null; payload: string } | null>> = [];
  if (operation.path === TOKEN_PATH) {
    choices.push({ weight: 8, arbitrary: tokenForm(world).map((payload) => ({ contentType: 'application/x-www-form-urlencoded', payload })) });
  }
  for (const [mediaType, schema] of Object.entries(operation.body ?? {})) {
    if (mediaType === 'multipart/form-data') {
      choices.push({ weight: 6, arbitrary: multipartBody(world.document, schema) });
      continue;
    }
    if (mediaType === 'application/json') choices.push({ weight: 1, arbitrary: deepJson(world.document, schema).map((payload) => ({ contentType: mediaType, payload })) });
    const value = jsonFromSchema(world.document, schema);
    const encoded =
      mediaType === 'application/x-www-form-urlencoded'
        ? value.map((v) => new URLSearchParams(v && typeof v === 'object' ? Object.entries(v).map(([k, x]) => [k, typeof x === 'string' ? x : JSON.stringify(x)]) : []).toString())
        : value.map((v) => JSON.stringify(v) ?? 'null');
    choices.push({ weight: 6, arbitrary: encoded.map((payload) => ({ contentType: mediaType, payload })) });
  }
  choices.push({ weight: operation.body || operation.path === TOKEN_PATH ? 2 : 1, arbitrary: generic });
  choices.push({ weight: operation.body || operation.path === TOKEN_PATH ? 1 : 10, arbitrary: fc.constant(null) });
  return fc.oneof(...choices);
}

/**
 * Path parameters that stand for several segments (the transparency log's `/log/tile/{tile_path}`, C2SP
 * tlog-tiles paths such as `0/x001/234.p/17`): besides the schema's values, tile paths written raw, with
 * their slashes, as tlog-tiles spells them and bent just off it (levels past 63, 4-digit or unprefixed
 * elements, widths of 0 or 256, traversal, stray segments).
 */
const MULTI_SEGMENT_PARAMETERS = new Set(['tile_path']);
const tileElement = fc.nat(999).map((n) => String(n).padStart(3, '0'));
const tilePathValue: fc.Arbitrary<WireValue> = fc
  .record({
    level: fc.oneof(fc.constantFrom('0', '1', '2', '63', 'entries'), fc.constantFrom('64', '01', '-1', 'x', '', '1e1', '%30')),
    inner: fc.array(tileElement.map((e) => `x${e}`), { maxLength: 3 }),
    last: fc.oneof({ weight: 4, arbitrary: tileElement }, { weight: 1, arbitrary: fc.constantFrom('1', '0000', 'x001', '..', '.', '', '%2e%2e', 'abc') }),
    width: fc.oneof({ weight: 3, arbitrary: fc.constant(null) }, { weight: 3, arbitrary: fc.integer({ min: 1, max: 255 }).map(String) }, { weight: 1, arbitrary: fc.constantFrom('0', '256', '012', '', 'x') }),
    tail: fc.oneof({ weight: 5, arbitrary: fc.constant('') }, { weight: 1, arbitrary: fc.constantFrom('/', '/extra', '//', '/../../checkpoint') }),
  })
  .map(({ level, inner, last, width, tail }) => ({ raw: `${[level, ...inner, last].join('/')}${width === null ? '' : `.p/${width}`}${tail}` }));

/** Depths around the JSON bound (src/http/plugins/json-body.ts) and far beyond it. */
const DEPTHS = [2, 62, 63, 64, 65, 500, 1_000, 5_000, 100_000];

/** A body object whose one field (one of the schema's, or another) holds arrays or objects nested `levels` deep. */
function deepJson(document: JsonSchema, schema: JsonSchema): fc.Arbitrary<string> {
  const names = Object.keys((resolveRef(document, schema).properties ?? {}) as Record<string, unknown>);
  return fc.tuple(fc.constantFrom(...names, 'extra'), fc.constantFrom(...DEPTHS), fc.constantFrom('[', '{"a":'), fc.constantFrom('1', '"a\\u0000"', 'null', '[]')).map(
    ([name, levels, open, inner]) => `{${JSON.stringify(name)}:${open.repeat(levels)}${inner}${(open === '[' ? ']' : '}').repeat(levels)}}`,
  );
}

/** One request generated from one operation of the document. */
export function requestFor(world: FuzzWorld, operation: Operation): fc.Arbitrary<FuzzRequest> {
  const pathParams = operation.parameters.filter((p) => p.in === 'path');
  const queryParams = operation.parameters.filter((p) => p.in === 'query');
  const headerParams = operation.parameters.filter((p) => p.in === 'header');
  const occurrences = (required: boolean, value: fc.Arbitrary<WireValue>) =>
    fc.oneof(
      { weight: required ? 1 : 4, arbitrary: fc.constant([] as WireValue[]) },
      { weight: 8, arbitrary: value.map((v) => [v]) },
      { weight: 1, arbitrary: fc.array(value, { minLength: 2, maxLength: 3 }) },
    );
  const pathValues = fc.tuple(
    ...pathParams.map((p) => (MULTI_SEGMENT_PARAMETERS.has(p.name) ? fc.oneof({ weight: 3, arbitrary: tilePathValue }, { weight: 1, arbitrary: parameterValue(p.schema, world.pool) }) : parameterValue(p.schema, world.pool))),
  );
  const query = fc.tuple(...queryParams.map((p) => occurrences(p.required, parameterValue(p.schema, world.pool)).map((vs) => vs.map((v) => `${percentEncode(p.name)}=${wire(v)}`))));
  const strayQuery = fc.array(
    fc.tuple(fc.constantFrom('foo', 'limit%5B%5D', '__proto__', 'constructor', 'project_id%20', '', 'PROJECT_ID', 'toString', '%ZZ'), fc.oneof(hostileText.map(percentEncode), encodedJunk)).map(([k, v]) => `${k}=${v}`),
    { maxLength: 2 },
  );
  const headerValues = fc.tuple(...headerParams.map((p) => fc.option(parameterValue(p.schema, world.pool).map((v) => headerSafe('raw' in v ? v.raw : v.text)), { freq: 3 })));
  const method = fc.oneof({ weight: 9, arbitrary: fc.constant(operation.method) }, { weight: 2, arbitrary: fc.constantFrom(...OTHER_METHODS) });
  const extraHeaders = fc.record(
    {
      'accept-language': languageJunk,
      accept: fc.constantFrom('application/json', 'text/html', '*/*', 'application/xml', 'image/png', '', 'application/json;q=0'),
      'x-forwarded-for': fc.constantFrom('1.2.3.4', '::1, 10.0.0.1', 'garbage', ''),
      'x-request-id': fc.oneof(fc.constantFrom('abcdefgh', 'x'.repeat(200)), hostileText.map(headerSafe)),
      'content-length-junk': hostileText.map(headerSafe),
    },
    { requiredKeys: [] },
  );
  return fc
    .record({
      method,
      bend: pathBend,
      pathValues,
      query,
      strayQuery,
      reverseQuery: fc.boolean(),
      headerValues,
      cred: credential(world),
      extraHeaders,
      body: body(world, operation),
      remoteAddress: fc.constantFrom('127.0.0.1', '10.0.0.2', '10.0.0.3', '192.0.2.7', '::1'),
    })
    .map((r) => {
      const values = Object.fromEntries(pathParams.map((p, i) => [p.name, wire(r.pathValues[i]!)]));
      const path = r.bend(fillPath(operation.path, values, (v) => v));
      const pairs = [...r.query.flat(), ...r.strayQuery];
      if (r.reverseQuery) pairs.reverse();
      const headers: Record<string, string | string[]> = {};
      for (const [name, value] of Object.entries(r.extraHeaders)) headers[name] = value as string;
      headerParams.forEach((p, i) => {
        const v = r.headerValues[i];
        if (v !== null && v !== undefined) headers[p.name] = v;
      });
      if (r.cred.value !== null) headers.authorization = r.cred.value;
      if (r.body?.contentType) headers['content-type'] = r.body.contentType;
      return {
        operation,
        method: r.method,
        url: pairs.length > 0 ? `${path}?${pairs.join('&')}` : path,
        // A value with dot segments (`%2e%2e/..`) is resolved away by every HTTP client (WHATWG URL, as
        // app.inject does), so the request lands on another path: not this operation's own route.
        exactRoute: r.method === operation.method && path === fillPath(operation.path, values, (v) => v) && resolvedPath(path) === path,
        headers,
        ...(r.body ? { payload: r.body.payload } : {}),
        remoteAddress: r.remoteAddress,
        credential: r.cred.name,
      };
    });
}

/** The path as an HTTP client sends it: dot segments (`..`, `%2e%2e`) resolved per the WHATWG URL standard. */
export function resolvedPath(path: string): string {
  return new URL(path, 'http://fuzz.invalid').pathname;
}

/** A request for any operation of the document. */
export function fuzzRequest(world: FuzzWorld, operations: Operation[]): fc.Arbitrary<FuzzRequest> {
  return fc.oneof(...operations.map((op) => requestFor(world, op)));
}
