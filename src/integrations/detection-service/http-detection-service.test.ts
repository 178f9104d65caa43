import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startDetectionServer, sha256, type DetectionServer } from '../../../test/helpers/detection-server.js';
import { DetectionProtocolError } from '../../domain/analysis/detection/detection-protocol.js';
import { isPermanentJobError } from '../../domain/background/job-handler.js';
import { DetectionRefusedError, DetectionServiceError, HttpDetectionService, MAX_RESPONSE_BYTES } from './http-detection-service.js';

const image = (n: number) => ({ bytes: Buffer.from(`image number ${n}`), contentType: 'image/png' });
const VERDICT = {
  score: 0.81,
  regions: [
    { label: 'hand', confidence: 0.93, geometry: { type: 'RECTANGLE', x: 0.1, y: 0.2, w: 0.3, h: 0.4 } },
    { label: 'sky', confidence: 0.2, geometry: { type: 'POLYGON', points: [[0.5, 0.1], [0.9, 0.1], [0.7, 0.4]] } },
  ],
};

describe('HTTP detection service adapter, against a real detection server on 127.0.0.1', () => {
  let server: DetectionServer;
  let client: HttpDetectionService;
  /** Same service, short deadline: for the hang case only (a loaded machine can take 300 ms for a first answer). */
  let impatient: HttpDetectionService;
  const signal = new AbortController().signal;

  before(async () => {
    server = await startDetectionServer();
    client = new HttpDetectionService({ url: server.url, key: server.key, timeoutMs: 10_000, maxRequestBytes: 64 });
    impatient = new HttpDetectionService({ url: server.url, key: server.key, timeoutMs: 300, maxRequestBytes: 64 });
  });
  after(() => server.close());

  it('POSTs the image with the bearer key and its content type, and returns the validated answer', async () => {
    server.answerFor(image(1).bytes, { kind: 'json', body: VERDICT });
    assert.deepEqual(await client.detect(image(1), signal), VERDICT);
    const last = server.requests.at(-1)!;
    assert.deepEqual(last, { method: 'POST', contentType: 'image/png', authorization: `Bearer ${server.key}`, size: image(1).bytes.length, sha256: sha256(image(1).bytes) });
  });

  it('answers deterministically by image', async () => {
    server.answerFor(image(2).bytes, { kind: 'json', body: { score: 0.3, regions: [] } });
    assert.equal((await client.detect(image(2), signal)).score, 0.3);
    assert.equal((await client.detect(image(1), signal)).score, 0.81);
  });

  it('throws on 5xx and on a wrong key (401), without the key in the message', async () => {
    server.answerFor(image(3).bytes, { kind: 'status', status: 503 });
    await assert.rejects(client.detect(image(3), signal), (err: Error) => err instanceof DetectionServiceError && /answered 503/.test(err.message));
    const wrong = new HttpDetectionService({ url: server.url, key: 'not-the-key', timeoutMs: 10_000, maxRequestBytes: 64 });
    await assert.rejects(wrong.detect(image(1), signal), (err: Error) => /answered 401/.test(err.message) && !err.message.includes('not-the-key'));
  });

  it('throws after its timeout when the service hangs', async () => {
    server.answerFor(image(4).bytes, { kind: 'hang' });
    const started = performance.now();
    await assert.rejects(impatient.detect(image(4), signal), (err: Error) => err instanceof DetectionServiceError && /did not answer within 300 ms/.test(err.message));
    assert.ok(performance.now() - started < 3000);
  });

  it('throws on a body that is not JSON and on JSON outside the protocol', async () => {
    server.answerFor(image(5).bytes, { kind: 'raw', body: '<html>oops</html>' });
    await assert.rejects(client.detect(image(5), signal), DetectionProtocolError);
    const bad = [
      { regions: [] },
      { score: 1.5, regions: [] },
      { score: 0.5, regions: [{ label: 'x', confidence: 0.5, geometry: { type: 'CIRCLE', r: 0.1 } }] },
      { score: 0.5, regions: [{ label: 'x', confidence: 0.5, geometry: { type: 'RECTANGLE', x: 0.8, y: 0, w: 0.5, h: 0.1 } }] },
      { score: 0.5, regions: [{ label: 'x', confidence: 0.5, geometry: { type: 'POLYGON', points: [[0, 0], [1, 1]] } }] },
      { score: 0.5, regions: [{ label: 'x', confidence: 0.5, geometry: { type: 'RECTANGLE', x: -0.1, y: 0, w: 0.5, h: 0.1 } }] },
    ];
    for (const body of bad) {
      server.answerFor(image(6).bytes, { kind: 'json', body });
      await assert.rejects(client.detect(image(6), signal), DetectionProtocolError, JSON.stringify(body));
    }
  });

  it('refuses an oversized answer, an oversized image, and a redirect away from the configured URL', async () => {
    server.answerFor(image(7).bytes, { kind: 'raw', body: ' '.repeat(MAX_RESPONSE_BYTES + 1) });
    await assert.rejects(client.detect(image(7), signal), /exceeds/);
    const sent = server.requests.length;
    await assert.rejects(client.detect({ bytes: Buffer.alloc(65), contentType: 'image/png' }, signal), /exceeds the 64-byte limit/);
    assert.equal(server.requests.length, sent, 'nothing was sent');
    server.answerFor(image(8).bytes, { kind: 'redirect', location: `${server.url}?elsewhere=1` });
    await assert.rejects(client.detect(image(8), signal), DetectionServiceError);
    assert.equal(server.requests.length, sent + 1, 'the redirect was not followed');
  });

  it('throws when nothing listens at the URL', async () => {
    const closed = await startDetectionServer();
    await closed.close();
    const gone = new HttpDetectionService({ url: closed.url, key: 'k', timeoutMs: 10_000, maxRequestBytes: 64 });
    await assert.rejects(gone.detect(image(1), signal), /unreachable/);
  });

  it('classifies answers: 400, 413, 415, 422 refuse the image for good; 401, 403, 404, 408, 429 and 5xx are transient', async () => {
    for (const [n, status] of [400, 413, 415, 422].entries()) {
      server.answerFor(image(20 + n).bytes, { kind: 'status', status });
      await assert.rejects(client.detect(image(20 + n), signal), (err: Error) => {
        assert.ok(err instanceof DetectionRefusedError && isPermanentJobError(err), `${status}: ${err.name}`);
        assert.equal(err.status, status);
        assert.match(err.message, new RegExp(`answered ${status}: it refuses this image`));
        return true;
      });
    }
    for (const [n, status] of [401, 403, 404, 408, 429, 500, 502, 503, 504].entries()) {
      server.answerFor(image(30 + n).bytes, { kind: 'status', status });
      await assert.rejects(client.detect(image(30 + n), signal), (err: Error) => {
        assert.ok(err instanceof DetectionServiceError, `${status}: ${err.name}`);
        assert.equal(err.status, status);
        assert.ok(!isPermanentJobError(err));
        return true;
      });
    }
    // Too large to send: permanent too (the analysis sends the preview instead; this is the guard).
    await assert.rejects(client.detect({ bytes: Buffer.alloc(65), contentType: 'image/png' }, signal), (err: Error) => isPermanentJobError(err));
    // Unreachable and timed out: transient.
    server.answerFor(image(40).bytes, { kind: 'hang' });
    await assert.rejects(impatient.detect(image(40), signal), (err: Error) => err instanceof DetectionServiceError && !isPermanentJobError(err));
  });

  it('refuses a URL with credentials at construction, without repeating them', () => {
    for (const url of [`http://svc-user:pa55-secret@127.0.0.1:9/detect`, 'http://token-only-secret@127.0.0.1:9/']) {
      assert.throws(() => new HttpDetectionService({ url, key: 'k', timeoutMs: 1000, maxRequestBytes: 64 }), (err: Error) => {
        assert.match(err.message, /must not contain credentials .*AI_DETECTION_KEY/);
        for (const secret of ['svc-user', 'pa55-secret', 'token-only-secret']) assert.ok(!`${err.message}${err.stack}`.includes(secret));
        return true;
      });
    }
  });

  it('never puts the key or the query string (which may hold a token) in an error message or stack', async () => {
    const key = 'the-real-key-9f8e7d6c';
    const secretServer = await startDetectionServer({ key });
    try {
      const query = 'token=qs-secret-4242&model=v2';
      const withQuery = new HttpDetectionService({ url: `${secretServer.url}?${query}`, key, timeoutMs: 10_000, maxRequestBytes: 64 });
      const quick = new HttpDetectionService({ url: `${secretServer.url}?${query}`, key, timeoutMs: 300, maxRequestBytes: 64 });
      const wrongKey = new HttpDetectionService({ url: `${secretServer.url}?${query}`, key: `${key}-wrong`, timeoutMs: 10_000, maxRequestBytes: 64 });
      secretServer.answerFor(image(50).bytes, { kind: 'status', status: 503 });
      secretServer.answerFor(image(51).bytes, { kind: 'status', status: 422 });
      secretServer.answerFor(image(52).bytes, { kind: 'raw', body: 'not json' });
      secretServer.answerFor(image(53).bytes, { kind: 'hang' });
      secretServer.answerFor(image(54).bytes, { kind: 'redirect', location: `${secretServer.url}?${query}&again=1` });
      const failures = await Promise.all([
        withQuery.detect(image(50), signal).catch((e: Error) => e),
        withQuery.detect(image(51), signal).catch((e: Error) => e),
        withQuery.detect(image(52), signal).catch((e: Error) => e),
        quick.detect(image(53), signal).catch((e: Error) => e),
        withQuery.detect(image(54), signal).catch((e: Error) => e),
        wrongKey.detect(image(50), signal).catch((e: Error) => e),
      ]);
      await secretServer.close();
      failures.push(await withQuery.detect(image(50), signal).catch((e: Error) => e)); // nothing listens any more
      for (const failure of failures) {
        assert.ok(failure instanceof Error, String(failure));
        const text = `${failure.name}: ${failure.message}\n${failure.stack}\n${JSON.stringify(failure)}`;
        for (const secret of [key, 'qs-secret-4242', 'token=']) assert.ok(!text.includes(secret), `${secret} in ${text}`);
        assert.ok(!failure.message.includes('?'), failure.message);
      }
      assert.deepEqual(failures.map((f) => (f as Error).name), ['DetectionServiceError', 'DetectionRefusedError', 'DetectionProtocolError', 'DetectionServiceError', 'DetectionServiceError', 'DetectionServiceError', 'DetectionServiceError']);
    } finally {
      await secretServer.close();
    }
  });
});
