/**
 * A real, small AI detection service for tests, on 127.0.0.1 and a free port. It speaks certdesk's
 * detection protocol and answers deterministically by image: a test registers an answer for the SHA-256
 * of an image's bytes (`answerFor`), every other image gets `defaultAnswer`. An answer can also be a
 * failure mode: an HTTP status, a body that is not JSON, a hang (never answers until the server stops),
 * or a redirect, or any of these after a delay. A wrong or missing bearer key is 401. `refuse()` stops listening (connections are refused,
 * as during an outage) until `accept()` listens again on the same port. `close()` ends every connection.
 */
import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { DetectionResponseT } from '../../src/domain/analysis/detection/detection-protocol.js';

export type DetectionAnswer =
  | { kind: 'json'; body: DetectionResponseT | unknown }
  | { kind: 'status'; status: number }
  | { kind: 'raw'; body: string; contentType?: string }
  | { kind: 'hang' }
  | { kind: 'redirect'; location: string }
  /** `then`, after `ms` (a slow service: analyses that stay running long enough to be interrupted). */
  | { kind: 'delay'; ms: number; then: DetectionAnswer };

export interface ReceivedRequest {
  method: string;
  contentType: string | undefined;
  authorization: string | undefined;
  size: number;
  sha256: string;
}

export interface DetectionServer {
  url: string;
  key: string;
  requests: ReceivedRequest[];
  /** The body of each request, in the order of `requests` (what certdesk sent: e.g. checked for metadata). */
  bodies: Buffer[];
  answerFor(image: Buffer, answer: DetectionAnswer | DetectionAnswer[]): void;
  /** Replaces the answer of images without one of their own (e.g. slow from now on). */
  setDefaultAnswer(answer: DetectionAnswer): void;
  /** Stops listening: every connection is refused (ECONNREFUSED) until `accept()`. */
  refuse(): Promise<void>;
  /** Listens again on the same port. */
  accept(): Promise<void>;
  close(): Promise<void>;
}

export const sha256 = (bytes: Buffer): string => createHash('sha256').update(bytes).digest('hex');

export const CLEAN_ANSWER: DetectionAnswer = { kind: 'json', body: { score: 0.05, regions: [] } };

export async function startDetectionServer(options: { key?: string; defaultAnswer?: DetectionAnswer } = {}): Promise<DetectionServer> {
  const key = options.key ?? 'test-detection-key-0123456789';
  const answers = new Map<string, DetectionAnswer[]>();
  let defaultAnswer = options.defaultAnswer ?? CLEAN_ANSWER;
  const requests: ReceivedRequest[] = [];
  const bodies: Buffer[] = [];
  const hanging = new Set<ServerResponse>();

  const reply = (res: ServerResponse, answer: DetectionAnswer) => {
    switch (answer.kind) {
      case 'json':
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(answer.body));
        return;
      case 'status':
        res.writeHead(answer.status, { 'content-type': 'application/json' }).end(JSON.stringify({ error: `status ${answer.status}` }));
        return;
      case 'raw':
        res.writeHead(200, { 'content-type': answer.contentType ?? 'application/json' }).end(answer.body);
        return;
      case 'redirect':
        res.writeHead(307, { location: answer.location }).end();
        return;
      case 'hang':
        hanging.add(res);
        return;
      case 'delay': {
        hanging.add(res);
        const timer = setTimeout(() => {
          hanging.delete(res);
          if (!res.destroyed) reply(res, answer.then);
        }, answer.ms);
        res.on('close', () => clearTimeout(timer));
        return;
      }
    }
  };

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks);
    const digest = sha256(body);
    bodies.push(body);
    requests.push({ method: req.method ?? '', contentType: req.headers['content-type'], authorization: req.headers.authorization, size: body.length, sha256: digest });
    if (req.headers.authorization !== `Bearer ${key}`) {
      res.writeHead(401, { 'content-type': 'application/json' }).end('{"error":"unauthorized"}');
      return;
    }
    // A sequence of answers is used up in order (e.g. one 503, then the verdict); the last one stays.
    const queue = answers.get(digest);
    const answer = queue ? (queue.length > 1 ? queue.shift()! : queue[0]!) : defaultAnswer;
    reply(res, answer);
  };

  const server = createServer((req, res) => {
    handle(req, res).catch(() => res.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1/detect`,
    key,
    requests,
    bodies,
    answerFor(image, answer) {
      answers.set(sha256(image), Array.isArray(answer) ? [...answer] : [answer]);
    },
    setDefaultAnswer(answer) {
      defaultAnswer = answer;
    },
    async refuse() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
    async accept() {
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(port, '127.0.0.1', () => {
          server.off('error', reject);
          resolve();
        });
      });
    },
    async close() {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      if (!server.listening) return;
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
