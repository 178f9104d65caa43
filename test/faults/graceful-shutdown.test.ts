/**
 * Fault test: SIGTERM while requests are in flight on keep-alive connections. The real `certdesk serve`
 * (embedded database) gets slow uploads to the token endpoint, web pages and API pages, plus requests
 * sent on idle keep-alive connections at the moment of the signal. Every one of them must complete;
 * /readyz must turn 503 first; no new connection is accepted; the process exits 0 within the grace
 * period.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { openDatabase } from '../../src/storage/database.js';
import { migrate } from '../../src/storage/migrate.js';
import { LocalDirectoryStorage } from '../../src/storage/object-storage/index.js';
import { loadStandardFixture, USERS } from '../helpers/fixtures.js';
import { basic, request, ServedProcess, signInCookie, type Answer } from './served-process.js';

/** Generous: the machine running the suite may be heavily loaded; the test waits on events, not on time. */
const GRACE_SECONDS = 30;
const START_DEADLINE_MS = 20_000;
const READYZ_DEADLINE_MS = 15_000;
const REQUEST_TIMEOUT_MS = 20_000;
const SLOW_UPLOADS = 16;
const PAGES = 4;
const IDLE = 8;
const admin = USERS.admin;

/** `promise`, or a rejection naming what did not happen within `ms`. */
async function withDeadline<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`${what} within ${ms} ms`)), ms)));
  try {
    return await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
}

describe('graceful shutdown on SIGTERM', { timeout: 420_000 }, () => {
  let dir: string;
  let server: ServedProcess;

  before(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'certdesk-drain-'));
    const handle = await openDatabase({ databaseUrl: null, pgliteDir: path.join(dir, 'pglite') });
    try {
      await migrate(handle);
      await loadStandardFixture(handle, new LocalDirectoryStorage(path.join(dir, 'objects')));
    } finally {
      await handle.close();
    }
    server = await ServedProcess.start({
      DATA_DIR: dir,
      LOG_LEVEL: 'info',
      SHUTDOWN_GRACE_PERIOD: String(GRACE_SECONDS),
      MASTER_KEY: 'drain-test-master-key-0123456789abcdef',
    });
  });

  after(async () => {
    await server?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('finishes every in-flight request, turns /readyz 503 first, refuses new connections and exits in time', async (t) => {
    const base = server.baseUrl;
    const cookie = await signInCookie(base, admin.email, admin.password);
    const tokenRes = await request(base, false, {
      method: 'POST',
      path: '/oauth2/token',
      headers: { authorization: basic(admin.clientId, admin.clientSecret), 'content-type': 'application/x-www-form-urlencoded' },
      body: 'grant_type=client_credentials',
    });
    const token = (JSON.parse(tokenRes.body) as { access_token: string }).access_token;

    // Keep-alive connections opened beforehand, idle at the moment of the signal.
    const idle = server.agent(IDLE);
    await Promise.all(Array.from({ length: IDLE }, () => request(base, idle, { path: '/healthz' })));
    const probe = server.agent(1);
    assert.equal((await request(base, probe, { path: '/readyz' })).status, 200);

    // In flight: token requests whose body ends only once the drain has begun, and pages. The uploads
    // ask for `100 Continue`, so the test knows (an event, not a guess) that the server has read each
    // request head before it sends the signal.
    const uploads = server.agent(SLOW_UPLOADS);
    let releaseUploads!: () => void;
    const release = new Promise<void>((resolve) => (releaseUploads = resolve));
    const pages = server.agent(PAGES);
    const headsRead: Array<Promise<void>> = [];
    const inFlight: Array<Promise<Answer>> = [
      ...Array.from({ length: SLOW_UPLOADS }, () => {
        let headRead!: () => void;
        headsRead.push(new Promise<void>((resolve) => (headRead = resolve)));
        return request(base, uploads, {
          method: 'POST',
          path: '/oauth2/token',
          headers: {
            authorization: basic(admin.clientId, admin.clientSecret),
            'content-type': 'application/x-www-form-urlencoded',
            expect: '100-continue',
          },
          body: { first: 'grant_type=client', second: '_credentials', release },
          timeoutMs: REQUEST_TIMEOUT_MS,
          onContinue: headRead,
        });
      }),
      ...Array.from({ length: PAGES }, (_, i) =>
        i % 2 === 0
          ? request(base, pages, { path: '/orders', headers: { cookie }, timeoutMs: REQUEST_TIMEOUT_MS })
          : request(base, pages, {
              path: '/v1/orders?project_id=All%20Projects&limit=100&preview=true',
              headers: { authorization: `Bearer ${token}` },
              timeoutMs: REQUEST_TIMEOUT_MS,
            }),
      ),
    ];
    // Settled as they go: a request that fails early is reported with the others, not as an unhandled
    // rejection in the middle of the test.
    const inFlightSettled = Promise.allSettled(inFlight);
    await withDeadline(Promise.all(headsRead), START_DEADLINE_MS, 'the server did not read every upload head');

    const signalledAt = Date.now();
    server.child.kill('SIGTERM');
    // Sent on the idle keep-alive connections right at the signal: they must be answered, not reset.
    const atSignalSettled = Promise.allSettled(
      Array.from({ length: IDLE }, () => request(base, idle, { path: '/healthz', timeoutMs: REQUEST_TIMEOUT_MS })),
    );

    // Readiness turns 503 while the uploads are still in flight (they cannot finish before we release
    // them). Polled back to back on the probe's keep-alive connection (new connections are refused
    // once draining), never left idle long enough for the drain to close it as an idle connection.
    let readyz = await request(base, probe, { path: '/readyz', timeoutMs: REQUEST_TIMEOUT_MS });
    while (readyz.status === 200 && Date.now() - signalledAt < READYZ_DEADLINE_MS) {
      readyz = await request(base, probe, { path: '/readyz', timeoutMs: REQUEST_TIMEOUT_MS });
    }
    const readyzFlippedAt = Date.now();
    assert.equal(readyz.status, 503, `/readyz still ${readyz.status} ${readyzFlippedAt - signalledAt} ms after SIGTERM`);
    assert.equal((JSON.parse(readyz.body) as { status: string }).status, 'draining');
    assert.equal(readyz.headers.connection, 'close');

    // New connections are still answered (each closed after its response) for a moment after /readyz
    // turned 503, then refused.
    let refused: Error | null = null;
    while (!refused && Date.now() - signalledAt < READYZ_DEADLINE_MS) {
      try {
        const late = await request(base, false, { path: '/healthz', timeoutMs: REQUEST_TIMEOUT_MS });
        assert.equal(late.headers.connection, 'close');
      } catch (err) {
        refused = err as Error;
      }
    }
    // (A reset is a connection that reached the kernel's backlog in the instant the listener closed.)
    assert.match(String(refused), /ECONNREFUSED|ECONNRESET/, `new connections still accepted ${Date.now() - signalledAt} ms after SIGTERM`);
    releaseUploads();

    const answers = [...(await inFlightSettled), ...(await atSignalSettled)];
    const labels = [
      ...Array.from({ length: SLOW_UPLOADS }, (_, i) => `slow upload ${i}`),
      ...Array.from({ length: PAGES }, (_, i) => `page ${i}`),
      ...Array.from({ length: IDLE }, (_, i) => `request at the signal ${i}`),
    ];
    const failed = answers.flatMap((a, i) => (a.status === 'rejected' ? [`${labels[i]}: ${String(a.reason)}`] : []));
    assert.deepEqual(failed, [], `${failed.length} of ${answers.length} in-flight requests failed`);
    const statuses = answers.map((a) => (a as PromiseFulfilledResult<Answer>).value.status);
    assert.deepEqual(statuses, statuses.map(() => 200));
    const lastAnswerAt = Date.now();
    // Those answered after the signal ended their keep-alive connection.
    const uploadsAnswers = answers.slice(0, SLOW_UPLOADS).map((a) => (a as PromiseFulfilledResult<Answer>).value);
    assert.ok(uploadsAnswers.every((a) => a.headers.connection === 'close'));

    const exit = await server.waitForExit();
    assert.equal(exit.code, 0, `exit ${exit.code ?? exit.signal}`);
    assert.ok(exit.at - signalledAt < GRACE_SECONDS * 1000, `exited ${exit.at - signalledAt} ms after SIGTERM`);
    assert.ok(readyzFlippedAt < lastAnswerAt, '/readyz was 503 before the last in-flight request finished');
    assert.equal(server.logged('draining: readiness is 503, no new connections').length, 1);
    assert.equal(server.logged('drain deadline: connections closed with requests unfinished').length, 0);
    assert.equal(server.logged('stopped').length, 1);
    t.diagnostic(
      `${answers.length} in-flight requests all 200; /readyz 503 ${readyzFlippedAt - signalledAt} ms after SIGTERM; exit 0 after ${exit.at - signalledAt} ms (grace ${GRACE_SECONDS} s)`,
    );
  });
});
