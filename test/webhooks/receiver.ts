/**
 * A real local webhook receiver for tests: records every request (headers and raw body) and answers by
 * path: `/ok` 200, `/fail` 500, `/gone` 410, `/redirect` 302 to `/ok`, `/hang` never answers, `/huge` 200
 * with an endless body, `/gigabyte` 200 with a 1 GiB body made lazily (64 KiB at a time, as the socket
 * drains: nothing near 1 GiB is ever allocated), counting what it managed to write in `bytesSent`; `/held`
 * 200, or no answer while `holding` is set (until `release()`).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedRequest {
  path: string;
  headers: http.IncomingHttpHeaders;
  body: string;
  /** When its connection was opened (performance.now()): tells apart the requests of a sender that died. */
  connectedAt: number;
}

export interface Receiver {
  url(path: string): string;
  received: ReceivedRequest[];
  /**
   * The most requests to one path that were open at the same time, not counting a request that arrived
   * more than `clientTimeoutMs` before (its sender has given up on it by then, though this server may see
   * the connection close a little later on a loaded machine).
   */
  maxOpen: Map<string, number>;
  /** `/held`: while true, requests are recorded and left unanswered (a delivery in flight, on purpose). */
  holding: boolean;
  /** Stops holding: every held request that still has a connection is answered 200. */
  release(): void;
  /** Requests held now. */
  held(): number;
  /** Body bytes the receiver wrote, by path (`/gigabyte`). */
  bytesSent: Map<string, number>;
  close(): Promise<void>;
}

export interface ReceiverOptions {
  /** The senders' request deadline, when they have one (maxOpen). */
  clientTimeoutMs?: number;
}

export async function startReceiver(options: ReceiverOptions = {}): Promise<Receiver> {
  const clientTimeoutMs = options.clientTimeoutMs ?? Number.POSITIVE_INFINITY;
  const received: ReceivedRequest[] = [];
  const hanging = new Set<http.ServerResponse>();
  /** The requests open now, by path, each with its arrival time (performance.now()). */
  const open = new Map<string, Set<{ arrived: number }>>();
  const maxOpen = new Map<string, number>();
  const bytesSent = new Map<string, number>();
  const heldNow = new Set<http.ServerResponse>();
  const state = { holding: false };
  const connectedAt = new WeakMap<object, number>();
  const server = http.createServer((req, res) => {
    const key = req.url ?? '/';
    const request = { arrived: performance.now() };
    const openHere = open.get(key) ?? new Set<{ arrived: number }>();
    open.set(key, openHere);
    openHere.add(request);
    const stillWanted = [...openHere].filter((r) => r.arrived > request.arrived - clientTimeoutMs).length;
    maxOpen.set(key, Math.max(maxOpen.get(key) ?? 0, stillWanted));
    res.on('close', () => openHere.delete(request));
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const path = req.url ?? '/';
      received.push({ path, headers: req.headers, body: Buffer.concat(chunks).toString('utf8'), connectedAt: connectedAt.get(req.socket) ?? performance.now() });
      // The query only tells endpoints apart; the path chooses the answer.
      const route = path.split('?')[0];
      if (route === '/ok') res.writeHead(200).end('thanks');
      else if (route === '/fail') res.writeHead(500).end('broken');
      else if (route === '/gone') res.writeHead(410).end('gone');
      else if (route === '/redirect') res.writeHead(302, { location: '/ok' }).end();
      else if (route === '/hang') hanging.add(res);
      else if (route === '/held') {
        if (!state.holding) res.writeHead(200).end('thanks');
        else {
          heldNow.add(res);
          res.on('close', () => heldNow.delete(res));
        }
      }
      else if (route === '/huge') {
        res.writeHead(200, { 'content-type': 'text/plain' });
        const chunk = Buffer.alloc(64 * 1024, 'x');
        const pump = () => {
          while (!res.destroyed && res.write(chunk));
          if (!res.destroyed) res.once('drain', pump);
        };
        res.on('close', () => res.removeAllListeners('drain'));
        pump();
      } else if (route === '/gigabyte') {
        const total = 2 ** 30;
        const chunk = Buffer.alloc(64 * 1024, 'y');
        res.writeHead(200, { 'content-type': 'text/plain', 'content-length': String(total) });
        let sent = 0;
        const pump = () => {
          while (!res.destroyed && sent < total) {
            sent += chunk.length;
            bytesSent.set(path, sent);
            if (!res.write(chunk)) return void res.once('drain', pump);
          }
          if (!res.destroyed) res.end();
        };
        res.on('close', () => res.removeAllListeners('drain'));
        pump();
      } else res.writeHead(404).end();
    });
  });
  server.on('connection', (socket) => connectedAt.set(socket, performance.now()));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: (path) => `http://127.0.0.1:${port}${path}`,
    received,
    maxOpen,
    bytesSent,
    get holding() {
      return state.holding;
    },
    set holding(on: boolean) {
      state.holding = on;
    },
    release() {
      state.holding = false;
      for (const res of heldNow) if (!res.destroyed) res.writeHead(200).end('thanks');
      heldNow.clear();
    },
    held: () => heldNow.size,
    close: async () => {
      for (const res of [...hanging, ...heldNow]) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
