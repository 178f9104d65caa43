/**
 * Draining the HTTP server before the process stops, so that no request a client has already sent is
 * lost:
 *
 * 1. `draining` turns true: `/readyz` answers 503 and every response from now on says
 *    `Connection: close`, so each keep-alive connection ends after its current response;
 * 2. after `acceptLeadMs` (time for a load balancer to see the 503) no new connection is accepted:
 *    the listening socket closes right after an event-loop poll has accepted every connection already
 *    waiting in the kernel's backlog (closing it with connections still queued there resets them, and
 *    their clients had already sent a request);
 * 3. requests in flight finish; a connection with no request in flight is closed once it has stayed
 *    idle for `idleCloseMs` (checked after Node has read pending input, see `closeIfStillIdle`);
 * 4. at the deadline whatever is left is closed.
 *
 * Why not `http.Server#close()` or a terminator library: they close idle keep-alive connections at
 * once, and a request the client sent an instant before (still unread in the socket) is then reset.
 */
import net from 'node:net';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { FastifyInstance } from 'fastify';

declare module 'fastify' {
  interface FastifyInstance {
    /** Readiness and connection draining for a graceful stop (see connection-drain.ts). */
    drain: ConnectionDrain;
  }
}

interface ConnectionState {
  inFlight: Set<ServerResponse>;
  /** When the last response ended (or the connection opened). */
  idleSince: number;
  /** `socket.bytesRead` when last seen idle after a poll, or null: the connection is closed only if it is unchanged a sweep later. */
  idleBytesRead: number | null;
}

export interface DrainResult {
  /** Connections still open at the deadline, closed with a request in flight or unread. */
  forced: number;
}

export class ConnectionDrain {
  private readonly connections = new Map<net.Socket, ConnectionState>();
  private drainingSince: number | null = null;

  constructor(
    private readonly server: Server,
    /** How long a connection without a request in flight is kept open once draining. */
    private readonly idleCloseMs = 2000,
    /** How long connections are still accepted (and answered with `Connection: close`) once `/readyz` is 503. */
    private readonly acceptLeadMs = 1000,
  ) {
    server.on('connection', (socket: net.Socket) => {
      this.connections.set(socket, { inFlight: new Set(), idleSince: Date.now(), idleBytesRead: null });
      socket.once('close', () => this.connections.delete(socket));
    });
    server.on('request', (request: IncomingMessage, response: ServerResponse) => this.onRequest(request, response));
  }

  get draining(): boolean {
    return this.drainingSince !== null;
  }

  /** Open connections and requests in flight right now. */
  get load(): { connections: number; requests: number } {
    let requests = 0;
    for (const state of this.connections.values()) requests += state.inFlight.size;
    return { connections: this.connections.size, requests };
  }

  /** Runs the drain; resolves once every connection is closed, or at `timeoutMs` after forcing them. */
  drain(timeoutMs: number): Promise<DrainResult> {
    if (this.drainingSince === null) {
      this.drainingSince = Date.now();
      for (const state of this.connections.values()) for (const response of state.inFlight) closeAfter(response);
      this.stopAcceptingAfter(this.acceptLeadMs);
    }
    const deadline = this.drainingSince + timeoutMs;
    return new Promise((resolve) => {
      const sweep = setInterval(() => {
        if (this.connections.size === 0) {
          clearInterval(sweep);
          resolve({ forced: 0 });
          return;
        }
        if (Date.now() >= deadline) {
          clearInterval(sweep);
          const forced = this.connections.size;
          for (const socket of this.connections.keys()) socket.destroy();
          resolve({ forced });
          return;
        }
        const idleAfter = this.drainingSince!;
        for (const [socket, state] of this.connections) {
          if (state.inFlight.size === 0 && Date.now() - Math.max(state.idleSince, idleAfter) >= this.idleCloseMs) {
            this.closeIfStillIdle(socket, state);
          }
        }
      }, 50);
    });
  }

  /**
   * Timers run before the poll phase and setImmediate after it, so the listener closes once the poll has
   * accepted whatever connections the kernel already completed. net.Server's close stops accepting
   * without http.Server's immediate close of idle keep-alive connections.
   */
  private stopAcceptingAfter(ms: number): void {
    setTimeout(() => {
      setImmediate(() => {
        if (this.server.listening) net.Server.prototype.close.call(this.server);
      });
    }, ms).unref();
  }

  private onRequest(request: IncomingMessage, response: ServerResponse): void {
    const state = this.connections.get(request.socket);
    if (!state) return;
    state.inFlight.add(response);
    if (this.draining) closeAfter(response);
    state.idleBytesRead = null;
    response.once('close', () => {
      state.inFlight.delete(response);
      state.idleSince = Date.now();
    });
  }

  /**
   * Timers run before Node polls sockets for input, so a request sitting unread in an "idle" connection
   * (the event loop was busy) is only seen after the poll; setImmediate runs after it. A connection is
   * closed when two such looks, one sweep apart, find it idle and with nothing more read in between.
   */
  private closeIfStillIdle(socket: net.Socket, state: ConnectionState): void {
    setImmediate(() => {
      if (state.inFlight.size > 0 || !this.connections.has(socket)) {
        state.idleBytesRead = null;
      } else if (state.idleBytesRead === socket.bytesRead) {
        socket.destroy();
      } else {
        state.idleBytesRead = socket.bytesRead;
      }
    });
  }
}

/** Ends the keep-alive connection after this response (when its headers are not out yet). */
function closeAfter(response: ServerResponse): void {
  if (!response.headersSent) response.setHeader('Connection', 'close');
}

/** Decorates `app.drain`; `serve` calls `app.drain.drain(ms)` on SIGTERM before closing the app. */
export function installConnectionDrain(app: FastifyInstance): void {
  app.decorate('drain', new ConnectionDrain(app.server));
}
