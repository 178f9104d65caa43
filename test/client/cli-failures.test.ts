/**
 * `certdesk-client`'s failure contract, every command into every failure class: a non-zero exit prints
 * exactly one line on stderr (`certdesk-client: ...`; nothing else, no help text, no second line), with the
 * documented exit code (clients/typescript/src/cli/exit-codes.ts, docs/client.md). The built bin runs as a
 * child process against the served application; HTTP failures of each class are answered by the test's
 * proxy in front of it (served-api.ts) for every API command alike, and the real server's own refusals
 * (wrong secret, an order that ends `Unsupported File`, `Failed`, `Action Required`) are reached for real.
 *
 * The client's failure lines do not depend on the database behind the server: this runs on PGlite only
 * (test/client/cli.test.ts runs the client on both databases).
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { databaseTargets } from '../helpers/database.js';
import { ACME, USERS } from '../helpers/fixtures.js';
import { certifyOrder } from '../helpers/certificates.js';
import { pngBytes } from '../helpers/images.js';
import { startServedApi, type FaultDecision, type ServedApi } from './served-api.js';

const BIN = path.resolve('clients/typescript/dist/cli/certdesk-client.js');
const NO_ID = '00000000-0000-4000-8000-000000000000';

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

function start(args: string[], env: Record<string, string>, stdin = ''): { done: Promise<Run>; running: () => boolean } {
  const child = spawn(process.execPath, [BIN, ...args], { env: { PATH: process.env.PATH ?? '', ...env }, stdio: ['pipe', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  let exited = false;
  child.stdout.on('data', (c) => (stdout += String(c)));
  child.stderr.on('data', (c) => (stderr += String(c)));
  const done = new Promise<Run>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => {
      exited = true;
      resolve({ code: code ?? -1, stdout, stderr });
    });
  });
  child.stdin.end(stdin);
  return { done, running: () => !exited };
}

const run = (args: string[], env: Record<string, string>, stdin = ''): Promise<Run> => start(args, env, stdin).done;

/** The contract: exit `code`, and stderr exactly one line `certdesk-client: ...` matching `message`. */
function assertOneLineFailure(what: string, r: Run, code: number, message?: RegExp): void {
  assert.equal(r.code, code, `${what}: exit ${r.code}, stderr ${JSON.stringify(r.stderr)}`);
  assert.match(r.stderr, /^certdesk-client: [^\n]+\n$/, `${what}: exactly one stderr line, got ${JSON.stringify(r.stderr)}`);
  if (message) assert.match(r.stderr, message, what);
}

/** Runs `tasks` with at most `width` at once (each is a child process). */
async function inBatches<T>(tasks: Array<() => Promise<T>>, width = 4): Promise<T[]> {
  const results: T[] = [];
  for (let i = 0; i < tasks.length; i += width) results.push(...(await Promise.all(tasks.slice(i, i + width).map((t) => t()))));
  return results;
}

describe('certdesk-client: one stderr line for every non-zero exit', () => {
  const target = databaseTargets()[0]!;
  let served: ServedApi;
  let dir: string;
  let art: string;
  let env: Record<string, string>;
  let viaProxy: Record<string, string>;
  before(async () => {
    assert.ok(existsSync(BIN), `${BIN} is missing: run \`npm run build\``);
    served = await startServedApi(target);
    dir = mkdtempSync(path.join(os.tmpdir(), 'certdesk-client-failures-'));
    art = path.join(dir, 'art.png');
    writeFileSync(art, pngBytes(6, 6));
    env = { CERTDESK_BASE_URL: served.serverUrl, CERTDESK_CLIENT_ID: USERS.admin.clientId, CERTDESK_CLIENT_SECRET: USERS.admin.clientSecret, CERTDESK_CONFIG_DIR: dir };
    viaProxy = { ...env, CERTDESK_BASE_URL: served.proxy.url };
  });
  after(async () => {
    served.proxy.fault = () => 'pass';
    await served?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  /** Every command that calls the API, with arguments that reach it. */
  const apiCommands = (): string[][] => [
    ['orders', 'list'],
    ['orders', 'list', '--all', '--csv'],
    ['orders', 'get', 'acme-0001'],
    ['orders', 'history', 'acme-0001'],
    ['orders', 'create', art],
    ['orders', 'create', art, '--wait'],
    ['orders', 'wait', 'acme-0001'],
    ['certificate', 'acme-0001'],
    ['certificate', 'acme-0001', '--verify', art],
    ['projects', 'list'],
    ['members', ACME.id],
    ['webhooks', 'list'],
    ['webhooks', 'get', NO_ID],
    ['webhooks', 'create', '--url', 'https://hooks.example/x', '--event', 'order.created'],
    ['webhooks', 'update', NO_ID, '--disable'],
    ['webhooks', 'delete', NO_ID],
    ['webhooks', 'rotate-secret', NO_ID],
    ['webhooks', 'deliveries', NO_ID],
    ['webhooks', 'retry', NO_ID, NO_ID],
  ];

  /** Each HTTP failure class, answered by the proxy for every /v1 request (the token is still fetched for real). */
  const httpClasses: Array<[name: string, decision: FaultDecision, code: number]> = [
    ['401 Unauthorized', { status: 401, body: { detail: 'Not authenticated' } }, 3],
    ['403 Forbidden', { status: 403, body: { detail: 'Not enough permissions' } }, 4],
    ['404 Not Found', { status: 404, body: { detail: 'Not found' } }, 5],
    ['409 Conflict', { status: 409, body: { detail: 'Conflict' } }, 6],
    ['422 Unprocessable', { status: 422, body: { detail: [{ loc: ['query', 'limit'], msg: 'bad', type: 'value_error' }] } }, 6],
    ['500 after no retry', { status: 500, body: { detail: 'boom' } }, 7],
    ['503 after every retry', { status: 503, headers: { 'retry-after': '0' }, body: { detail: 'busy' } }, 7],
    ['connection dropped on every attempt', 'drop-before', 8],
  ];

  for (const [name, decision, code] of httpClasses) {
    it(`every API command, ${name}: exit ${code}, one line`, async () => {
      served.proxy.fault = (req) => (req.path.startsWith('/v1/') ? decision : 'pass');
      try {
        const commands = apiCommands();
        const results = await inBatches(commands.map((args) => () => run(args, viaProxy)));
        results.forEach((r, i) => assertOneLineFailure(`${commands[i]!.join(' ')} (${name})`, r, code));
      } finally {
        served.proxy.fault = () => 'pass';
      }
    });
  }

  it('every API command without credentials (2), with no server (8), with an unknown option (2); a refused secret (3)', async () => {
    const commands = apiCommands();
    const classes: Array<[string, Record<string, string>, (args: string[]) => string[], number, RegExp]> = [
      ['no credentials', { CERTDESK_CONFIG_DIR: dir }, (a) => a, 2, /no credentials/],
      ['no server', { ...env, CERTDESK_BASE_URL: 'http://127.0.0.1:1', CERTDESK_TIMEOUT_MS: '5000' }, (a) => a, 8, /^certdesk-client: /],
      ['unknown option', env, (a) => [...a, '--no-such-option'], 2, /unknown option '--no-such-option'/],
    ];
    for (const [name, e, argsOf, code, message] of classes) {
      const results = await inBatches(commands.map((args) => () => run(argsOf(args), e)));
      results.forEach((r, i) => assertOneLineFailure(`${commands[i]!.join(' ')} (${name})`, r, code, message));
    }
    // A few only: the token endpoint locks a client out after repeated failures (then 429, exit 7); the
    // 401 class of every command is covered through the proxy above.
    const refused = { ...env, CERTDESK_CLIENT_ID: USERS.viewer.clientId, CERTDESK_CLIENT_SECRET: 'wrong-secret-0123456789' };
    for (const args of [['orders', 'list'], ['orders', 'create', art, '--wait'], ['webhooks', 'list']]) {
      assertOneLineFailure(`${args.join(' ')} (refused secret)`, await run(args, refused), 3, /invalid_client/);
    }
  });

  it('usage errors: no command, unknown commands, missing arguments and options, conflicting formats (2)', async () => {
    const cases: Array<[string[], RegExp]> = [
      [[], /a command is needed: login, orders, certificate, verify, log, projects, members, webhooks/],
      [['ordres', 'list'], /unknown command 'ordres'/],
      [['orders'], /orders needs a command: list, get, history, create, wait/],
      [['orders', 'frobnicate'], /unknown command 'frobnicate'/],
      [['projects'], /projects needs a command: list/],
      [['log'], /log needs a command: key, checkpoint, consistency, audit/],
      [['log', 'nope'], /unknown command 'nope'/],
      [['log', 'consistency'], /missing required argument 'old_checkpoint_file'/],
      [['verify'], /missing required argument 'file'/],
      [['webhooks'], /webhooks needs a command/],
      [['webhooks', 'nope'], /unknown command 'nope'/],
      [['orders', 'get'], /missing required argument 'id'/],
      [['orders', 'wait'], /missing required argument 'id'/],
      [['orders', 'create'], /missing required argument 'file'/],
      [['certificate'], /missing required argument 'order_id'/],
      [['members'], /missing required argument 'org_id'/],
      [['orders', 'list', '--json', '--csv'], /cannot be used with/],
      [['login'], /required option '--base-url <url>' not specified/],
      [['webhooks', 'create', '--url', 'https://hooks.example/x'], /required option '--event <event>'/],
      [['webhooks', 'update', NO_ID], /nothing to change/],
      [['webhooks', 'update', NO_ID, '--enable', '--disable'], /cannot be used with/],
    ];
    const results = await inBatches(cases.map(([args]) => () => run(args, env)));
    results.forEach((r, i) => assertOneLineFailure(cases[i]![0].join(' ') || '(no arguments)', r, 2, cases[i]![1]));
  });

  it('login: no secret (2), refused (3), token endpoint failing (7), no server (8)', async () => {
    const login = (baseUrl: string) => ['login', '--base-url', baseUrl, '--client-id', USERS.editor.clientId];
    const loginEnv = { CERTDESK_CONFIG_DIR: dir };
    assertOneLineFailure('login, empty stdin', await run(login(served.serverUrl), loginEnv, ''), 2, /no client secret given/);
    assertOneLineFailure('login, wrong secret', await run(login(served.serverUrl), loginEnv, 'not-the-secret\n'), 3);
    assertOneLineFailure('login, no server', await run(login('http://127.0.0.1:1'), { ...loginEnv, CERTDESK_TIMEOUT_MS: '5000' }, `${USERS.editor.clientSecret}\n`), 8);
    served.proxy.fault = (req) => (req.path === '/oauth2/token' ? { status: 500, body: { detail: 'boom' } } : 'pass');
    try {
      assertOneLineFailure('login, token endpoint 500', await run(login(served.proxy.url), loginEnv, `${USERS.editor.clientSecret}\n`), 7);
      // Every API command fails the same way when its token cannot be had.
      const commands = apiCommands();
      const results = await inBatches(commands.map((args) => () => run(args, viaProxy)));
      results.forEach((r, i) => assertOneLineFailure(`${commands[i]!.join(' ')} (token endpoint 500)`, r, 7));
    } finally {
      served.proxy.fault = () => 'pass';
    }
  });

  it('a file that cannot be read (2, before any request) and a certificate that does not match the file (9)', async () => {
    const missing = path.join(dir, 'missing.png');
    const before = served.proxy.log.length;
    assertOneLineFailure('orders create, missing file', await run(['orders', 'create', art, missing], viaProxy), 2, /cannot read .*missing\.png: no such file/);
    assertOneLineFailure('certificate --verify, missing file', await run(['certificate', 'acme-0001', '--verify', missing], viaProxy), 2, /cannot read .*missing\.png: no such file/);
    assert.equal(served.proxy.log.length, before, 'no request made (no order created for art.png either)');
    const created = await run(['orders', 'create', art, '--json'], env);
    assert.equal(created.code, 0, created.stderr);
    const { order_id: orderId } = JSON.parse(created.stdout) as { order_id: string };
    await certifyOrder(served.app, orderId);
    const other = path.join(dir, 'other.png');
    writeFileSync(other, pngBytes(3, 3));
    assertOneLineFailure('certificate --verify, other file', await run(['certificate', orderId, '--verify', other], env), 9, /is not the certified file/);
  });

  /** Runs a command while the test's worker runs the analysis jobs it queues (the served app runs none itself). */
  async function runWithJobs(args: string[]): Promise<Run> {
    const child = start(args, env);
    const deadline = Date.now() + 120_000;
    while (child.running()) {
      assert.ok(Date.now() < deadline, `${args.join(' ')} ended within 120 s`);
      if ((await served.app.services.jobs.worker.runDue()) === 0) await new Promise((r) => setTimeout(r, 50));
    }
    return child.done;
  }

  it('orders wait and orders create --wait name the final state and what to do (10)', async () => {
    const notes = path.join(dir, 'notes.png');
    writeFileSync(notes, 'plain text, not an image\n');
    const notes2 = path.join(dir, 'notes-2.png');
    writeFileSync(notes2, 'more plain text\n');

    const createdAndWaited = await runWithJobs(['orders', 'create', notes, '--wait', '--json']);
    assertOneLineFailure('orders create --wait notes.png', createdAndWaited, 10, /order \S+ ended Unsupported File: the file is not an image the analysis reads .*certdesk-client orders history /);
    const unsupported = (JSON.parse(createdAndWaited.stdout) as { order_id: string; order_state: string });
    assert.equal(unsupported.order_state, 'Unsupported File', 'the order is printed on stdout as well');

    const waited = await run(['orders', 'wait', unsupported.order_id], env);
    assertOneLineFailure('orders wait (Unsupported File)', waited, 10, new RegExp(`^certdesk-client: order ${unsupported.order_id} ended Unsupported File: `));

    const two = await runWithJobs(['orders', 'create', notes, notes2, '--wait']);
    assertOneLineFailure('orders create --wait, two text files', two, 10, /^certdesk-client: 2 of 2 orders not certified: .*notes\.png: order \S+ ended Unsupported File.*; .*notes-2\.png: order \S+ ended Unsupported File/);

    // The fixture's orders in the other states --wait stops at (first of each that the admin sees).
    const listed = await run(['orders', 'list', '--all', '--ndjson'], env);
    assert.equal(listed.code, 0, listed.stderr);
    const orders = listed.stdout.trimEnd().split('\n').map((l) => JSON.parse(l) as { order_id: string; order_state: string });
    const failed = orders.find((o) => o.order_state === 'Failed');
    const actionRequired = orders.find((o) => o.order_state === 'Action Required');
    assert.ok(failed && actionRequired, 'the fixture has Failed and Action Required orders');
    assertOneLineFailure('orders wait (Failed)', await run(['orders', 'wait', failed.order_id], env), 10, new RegExp(`order ${failed.order_id} ended Failed: .*certdesk-client orders history ${failed.order_id}`));
    assertOneLineFailure('orders wait (Action Required)', await run(['orders', 'wait', actionRequired.order_id], env), 10, new RegExp(`order ${actionRequired.order_id} is Action Required: .*respond`));

    const certified = orders.find((o) => o.order_state === 'Human Certified');
    assert.ok(certified);
    const ok = await run(['orders', 'wait', certified.order_id], env);
    assert.equal(ok.code, 0, ok.stderr);
    assert.equal(ok.stderr, '', 'success prints nothing on stderr off a terminal');
  });
});
