/**
 * The OpenAPI-driven fuzzer: tens of thousands of requests generated from the document the application
 * serves (every path and operation, parameters from their schemas, hostile values, duplicated and
 * missing parameters, other methods, credentials of several users, scopes and tenants, junk headers and
 * bodies) against the real application on PGlite with the standard fixture. No answer may be a 5xx,
 * and every answer must be JSON in one of the interface's shapes.
 *
 * FUZZ_REQUESTS (default 20000) requests go through app.inject; FUZZ_SOCKET_REQUESTS (default 1000)
 * more through a real socket. Every request must be answered within FUZZ_ANSWER_WITHIN_MS (default 5000):
 * one that is not fails the run as its counterexample. FUZZ_SEED replays a run; FUZZ_DATABASE_URL (a
 * PostgreSQL server; a throw-away database is made next to it) runs it on PostgreSQL instead of PGlite.
 * The seed, the status counts and the slowest answer are printed as test diagnostics, and a failure prints
 * fast-check's shrunk counterexample.
 */
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { SCOPES } from '../../src/contract/schemas.js';
import { openTestPglite, openTestPostgres } from '../helpers/database.js';
import { ACME, GLOBEX, USERS } from '../helpers/fixtures.js';
import { obtainToken, startApi, type Api } from '../http/api-harness.js';
import { assertAnswerShape } from './answer-shapes.js';
import { fuzzRequest, type FuzzRequest, type FuzzWorld } from './fuzz-requests.js';
import { listOperations, type Operation } from './openapi-operations.js';
import { StatusTally } from './status-tally.js';

const REQUESTS = Number(process.env.FUZZ_REQUESTS ?? 20_000);
/** No request may go unanswered longer than this (a hung request fails the run as its counterexample). */
const ANSWER_WITHIN_MS = Number(process.env.FUZZ_ANSWER_WITHIN_MS ?? 5_000);
/** A PostgreSQL server to fuzz against instead of PGlite (a throw-away database is made next to it). */
const DATABASE_URL = process.env.FUZZ_DATABASE_URL;
const SOCKET_REQUESTS = Number(process.env.FUZZ_SOCKET_REQUESTS ?? 1_000);
const SEED = process.env.FUZZ_SEED ? Number(process.env.FUZZ_SEED) : Date.now() % 2 ** 31;

interface Answer {
  status: number;
  headers: Record<string, string | string[] | number | undefined>;
  body: string;
}

async function buildWorld(api: Api): Promise<FuzzWorld> {
  const { app, tokens } = api;
  const listing = async (token: string) => {
    const res = await app.inject({ url: '/v1/orders?project_id=All%20Projects&limit=1', headers: { authorization: `Bearer ${token}` } });
    return (res.json() as { next_page_token: string }).next_page_token;
  };
  const adminReadOnly = await obtainToken(app, USERS.admin.clientId, USERS.admin.clientSecret, SCOPES.read);
  const bearers: Record<string, string> = {
    'admin(read+write)': `Bearer ${tokens.admin}`,
    'admin(read only)': `Bearer ${adminReadOnly}`,
    'editor(read)': `Bearer ${tokens.editor}`,
    'viewer(read)': `Bearer ${tokens.viewer}`,
    'loner(read)': `Bearer ${tokens.loner}`,
    'other org(read)': `Bearer ${tokens.other}`,
  };
  return {
    document: api.openapi.document,
    bearers,
    clients: Object.values(USERS).map((u) => ({ id: u.clientId, secret: u.clientSecret })),
    pool: [
      'All Projects',
      'Personal Certificates',
      ACME.id,
      GLOBEX.id,
      ...Object.values(ACME.projects).map((p) => p.id),
      GLOBEX.projects.alpha.id,
      await listing(tokens.admin),
      await listing(tokens.other),
      await listing(tokens.editor),
      USERS.admin.email,
      'acme-0001',
    ],
  };
}

function describeRequest(r: FuzzRequest): string {
  const payload = r.payload === undefined ? '' : ` body(${r.payload.length})=${JSON.stringify(r.payload.slice(0, 300))}`;
  return `${r.method} ${r.url.slice(0, 500)} [${r.credential}] headers=${JSON.stringify(r.headers).slice(0, 600)}${payload}`;
}

/** The answer, or a failure once `ms` passed without one. */
async function answeredWithin(answer: Promise<Answer>, ms: number, tally: StatusTally): Promise<Answer> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      tally.unanswered++;
      reject(new Error(`no answer within ${ms} ms`));
    }, ms);
  });
  try {
    return await Promise.race([answer, deadline]);
  } finally {
    clearTimeout(timer);
  }
}

async function check(api: Api, tally: StatusTally, r: FuzzRequest, send: (r: FuzzRequest) => Promise<Answer>): Promise<void> {
  const started = performance.now();
  const answer = await answeredWithin(send(r), ANSWER_WITHIN_MS, tally);
  tally.add(r, answer.status, performance.now() - started);
  try {
    if (assertAnswerShape(api.openapi, r, answer.status, answer.headers, answer.body) === 'undocumented') tally.undocumented(r, answer.status);
  } catch (err) {
    throw new Error(`${(err as Error).message}\nanswer ${answer.status} ${answer.body.slice(0, 500)}`);
  }
}

/** fc.assert, with the shrunk counterexample printed as a readable request. */
async function assertEveryAnswer(requests: fc.Arbitrary<FuzzRequest>, checkOne: (r: FuzzRequest) => Promise<void>, seed: number, numRuns: number): Promise<void> {
  const details = await fc.check(fc.asyncProperty(requests, checkOne), { seed, numRuns });
  if (details.failed) {
    const shrunk = details.counterexample ? describeRequest(details.counterexample[0]) : '(none)';
    throw new Error(`counterexample (seed ${seed}, path ${details.counterexamplePath}): ${shrunk}\n${String((details.errorInstance as Error)?.message ?? details.errorInstance).slice(0, 3000)}\n(failed after ${details.numRuns} requests, shrunk ${details.numShrinks} times)`);
  }
}

describe(`OpenAPI fuzzer (${DATABASE_URL ? 'PostgreSQL' : 'PGlite'}, standard fixture)`, () => {
  let api: Api;
  let world: FuzzWorld;
  let operations: Operation[];

  before(async () => {
    api = await startApi(DATABASE_URL ? { name: 'postgres', open: () => openTestPostgres(DATABASE_URL) } : { name: 'pglite', open: openTestPglite });
    world = await buildWorld(api);
    operations = listOperations(api.openapi.document);
  });
  after(() => api?.close());

  it(`answers ${REQUESTS} generated requests in-process with no 5xx and only interface shapes`, async (t) => {
    t.diagnostic(`seed ${SEED} (replay with FUZZ_SEED=${SEED}) on ${DATABASE_URL ? 'PostgreSQL' : 'PGlite'}; every answer within ${ANSWER_WITHIN_MS} ms; operations: ${operations.map((o) => `${o.method} ${o.path}`).join(', ')}`);
    const tally = new StatusTally();
    const started = Date.now();
    const send = async (r: FuzzRequest): Promise<Answer> => {
      const res = await api.app.inject({ method: r.method as 'GET', url: r.url, headers: r.headers, payload: r.payload, remoteAddress: r.remoteAddress });
      return { status: res.statusCode, headers: res.headers, body: res.body };
    };
    await assertEveryAnswer(fuzzRequest(world, operations), (r) => check(api, tally, r, send), SEED, REQUESTS);
    for (const line of tally.report(Date.now() - started)) t.diagnostic(line);
  });

  // Found by this fuzzer: PostgreSQL text cannot hold NUL, and the client lookup used to fail with a 500.
  it('a client_id with a NUL byte is an unknown client (401 invalid_client), not a server error', async () => {
    for (const clientId of ['\u0000', `${USERS.admin.clientId}\u0000`]) {
      const res = await api.app.inject({
        method: 'POST',
        url: '/oauth2/token',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload: new URLSearchParams({ grant_type: 'client_credentials', client_id: clientId, client_secret: USERS.admin.clientSecret }).toString(),
        remoteAddress: '198.51.100.9',
      });
      assert.equal(res.statusCode, 401, res.body);
      assert.equal((res.json() as { error: string }).error, 'invalid_client');
    }
  });

  it(`answers ${SOCKET_REQUESTS} generated requests through a real socket the same way`, { skip: SOCKET_REQUESTS <= 0 }, async (t) => {
    await api.app.listen({ host: '127.0.0.1', port: 0 });
    const { port } = api.app.server.address() as AddressInfo;
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const tally = new StatusTally();
    const started = Date.now();
    let previous = '(none)';
    const send = (r: FuzzRequest) =>
      new Promise<Answer>((resolve, reject) => {
        const req = http.request({ host: '127.0.0.1', port, agent, method: r.method, path: r.url, headers: { ...r.headers, ...(r.payload !== undefined ? { 'content-length': Buffer.byteLength(r.payload) } : {}) } }, (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => (previous = `${describeRequest(r).slice(0, 300)} -> ${res.statusCode} connection: ${res.headers.connection}`, resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') })));
          res.on('error', reject);
        });
        const before = previous;
        req.on('error', (err) => reject(new Error(`${err.message}; previous request on this connection: ${before}`)));
        req.end(r.payload);
      });
    try {
      // The socket path adds what inject cannot show: real framing, header parsing and keep-alive reuse.
      // Request heads over Node's 16 KiB limit are refused by Node's parser before Fastify sees them; they
      // must still answer 431/414 as {"detail"} with Connection: close, so they are sent too.
      await assertEveryAnswer(fuzzRequest(world, operations), (r) => check(api, tally, r, send), SEED + 1, SOCKET_REQUESTS);
    } finally {
      agent.destroy();
    }
    for (const line of tally.report(Date.now() - started)) t.diagnostic(`socket: ${line}`);
  });
});
