/**
 * A small round-robin HTTP load balancer for fleet tests: each request goes to the next backend in turn,
 * without affinity (as a balancer with no sticky sessions does), body and answer streamed through. A
 * backend that refuses or drops the connection is a 502 (the test's client sees what a balancer's
 * client would). Backends can be replaced while it runs (an instance killed and started again).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RoundRobinProxy {
  url: URL;
  /** The instances requests go to, in turn. */
  setBackends(backends: URL[]): void;
  /** Requests sent to each backend (by origin). */
  readonly sent: Map<string, number>;
  close(): Promise<void>;
}

export async function startRoundRobinProxy(backends: URL[] = []): Promise<RoundRobinProxy> {
  let targets = [...backends];
  let next = 0;
  const sent = new Map<string, number>();
  const server = http.createServer((req, res) => {
    if (targets.length === 0) {
      res.writeHead(503).end('no backend');
      return;
    }
    const target = targets[next++ % targets.length]!;
    sent.set(target.origin, (sent.get(target.origin) ?? 0) + 1);
    const upstream = http.request(
      { host: target.hostname, port: target.port, method: req.method, path: req.url, headers: req.headers, agent: false },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
        answer.on('error', () => res.destroy());
      },
    );
    upstream.on('error', () => {
      if (!res.headersSent) res.writeHead(502).end('bad gateway');
      else res.destroy();
    });
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: new URL(`http://127.0.0.1:${port}`),
    setBackends(list) {
      targets = [...list];
    },
    sent,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
