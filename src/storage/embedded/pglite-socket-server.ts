/**
 * Shares the serving process's embedded database with certdesk commands: a unix socket (mode 0600, in a
 * directory of mode 0700) speaking the PostgreSQL protocol, so `certdesk client create` and the like write
 * into the live database instead of into a second copy of the directory that is later overwritten.
 *
 * PGlite is one PostgreSQL session. @electric-sql/pglite-socket frames the protocol messages of each
 * connection (PGLiteSocketHandler); its own queue interleaves connections message by message, which would
 * let the server's queries run inside a command's open transaction or between its Parse and Sync. So the
 * queue here takes the server's own single-connection pool (PGlitePool) for a whole unit of work: from a
 * connection's first message until PGlite reports ReadyForQuery "idle" (the end of its transaction or
 * of its extended-protocol exchange). The API waits only for that unit, as it waits for its own
 * transactions.
 */
import fsp from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { PGLiteSocketHandler, type PGLiteSocketHandlerOptions } from '@electric-sql/pglite-socket';
import type { PostgresPoolClient } from 'kysely';
import type { PGlitePool } from '../pglite-pool.js';

/** The port number only names the socket file, as PostgreSQL does: `<dir>/.s.PGSQL.5432`. */
export const SOCKET_PORT = 5432;
const SOCKET_FILE = `.s.PGSQL.${SOCKET_PORT}`;
/** sun_path holds 108 bytes on Linux (104 on macOS); longer paths go to a private temporary directory. */
const MAX_SOCKET_PATH = 100;
/** A command that holds the database mid-transaction and then says nothing for this long is cut off. */
export const DEFAULT_HELD_IDLE_MS = 30_000;

const PROTOCOL_3 = 196_608;

function frame(type: string, body: Buffer): Uint8Array {
  const message = Buffer.alloc(5 + body.length);
  message.write(type, 0);
  message.writeInt32BE(4 + body.length, 1);
  body.copy(message, 5);
  return new Uint8Array(message);
}

const cstring = (text: string) => Buffer.from(`${text}\0`);
const SYNC = frame('S', Buffer.alloc(0));
const ROLLBACK = frame('Q', cstring('ROLLBACK'));
/**
 * COPY ... FROM STDIN through the socket brings PGlite 0.3 down (a WebAssembly trap on the next query),
 * the serving process with it. Such statements are replaced by one that fails with this message, so the
 * client gets a normal error (and its transaction, if any, is aborted as for any failed statement).
 */
const COPY_FROM_STDIN_REFUSED = "DO $$BEGIN RAISE EXCEPTION 'COPY FROM STDIN is not available through the certdesk serve socket' USING ERRCODE = 'feature_not_supported'; END$$";
const COPY_FROM_STDIN = /\bcopy\b[\s\S]*\bfrom\b[\s\S]*\bstdin\b/i;

/** The message to give PGlite: the client's own, or the refusal in place of a COPY FROM STDIN. */
function guarded(message: Uint8Array): Uint8Array {
  const type = message[0];
  if (type !== 0x51 && type !== 0x50) return message; // Query, Parse
  const body = Buffer.from(message.buffer, message.byteOffset + 5, message.length - 5);
  if (type === 0x51) return COPY_FROM_STDIN.test(body.toString('utf8')) ? frame('Q', cstring(COPY_FROM_STDIN_REFUSED)) : message;
  const nameEnd = body.indexOf(0);
  const name = body.subarray(0, nameEnd).toString('utf8');
  const text = body.subarray(nameEnd + 1, body.indexOf(0, nameEnd + 1)).toString('utf8');
  if (!COPY_FROM_STDIN.test(text)) return message;
  return frame('P', Buffer.concat([cstring(name), cstring(COPY_FROM_STDIN_REFUSED), Buffer.alloc(2)]));
}

function isStartup(message: Uint8Array): boolean {
  return message.length >= 8 && Buffer.from(message.buffer, message.byteOffset, message.length).readInt32BE(4) === PROTOCOL_3;
}

/** The transaction status of the last message when it is ReadyForQuery ('I', 'T' or 'E'), else null. */
export function readyStatusOf(response: Uint8Array): string | null {
  const bytes = Buffer.from(response.buffer, response.byteOffset, response.length);
  let offset = 0;
  let last = -1;
  while (offset + 5 <= bytes.length) {
    last = offset;
    offset += 1 + bytes.readInt32BE(offset + 1);
  }
  if (last < 0 || bytes[last] !== 0x5a || offset !== bytes.length) return null;
  return String.fromCharCode(bytes[last + 5]!);
}

interface Connection {
  handler: PGLiteSocketHandler;
  /** The server pool's single connection while this client is inside a unit of work. */
  lease: PostgresPoolClient | null;
  /** Messages of one connection run in order. */
  chain: Promise<unknown>;
  idleTimer: NodeJS.Timeout | null;
  closed: boolean;
}

/**
 * The queue PGLiteSocketHandler calls (enqueue, clearQueueForHandler, clearTransactionIfNeeded), backed by
 * the server's PGlitePool instead of the library's message-level queue.
 */
class PoolBackedQueue {
  readonly connections = new Map<number, Connection>();

  constructor(
    private readonly pool: PGlitePool,
    private readonly heldIdleMs: number,
  ) {}

  add(handler: PGLiteSocketHandler): void {
    this.connections.set(handler.handlerId, { handler, lease: null, chain: Promise.resolve(), idleTimer: null, closed: false });
  }

  enqueue(handlerId: number, message: Uint8Array): Promise<Uint8Array> {
    const connection = this.connections.get(handlerId);
    if (!connection || connection.closed) return Promise.reject(new Error('connection closed'));
    const result = connection.chain.then(() => this.#execute(connection, message));
    connection.chain = result.catch(() => undefined);
    return result;
  }

  async #execute(connection: Connection, message: Uint8Array): Promise<Uint8Array> {
    if (connection.idleTimer) clearTimeout(connection.idleTimer);
    connection.idleTimer = null;
    // Terminate would end PGlite's one backend, the server's own session included: the connection just closes.
    if (!isStartup(message) && message[0] === 0x58) return new Uint8Array(0);
    connection.lease ??= await this.pool.connect();
    const response = await this.pool.pglite.execProtocolRaw(isStartup(message) ? message : guarded(message));
    if (readyStatusOf(response) === 'I') this.#release(connection);
    else if (!connection.closed) {
      // Holding the server's connection: a client that stalls here would stall the API with it.
      connection.idleTimer = setTimeout(() => void connection.handler.detach(true), this.heldIdleMs);
      connection.idleTimer.unref();
    }
    return response;
  }

  #release(connection: Connection): void {
    connection.lease?.release();
    connection.lease = null;
  }

  clearQueueForHandler(handlerId: number): void {
    const connection = this.connections.get(handlerId);
    if (connection) connection.closed = true;
  }

  /** The client went away: end what it left open (an extended-protocol exchange, a transaction). */
  clearTransactionIfNeeded(handlerId: number): Promise<void> {
    const connection = this.connections.get(handlerId);
    if (!connection) return Promise.resolve();
    this.connections.delete(handlerId);
    connection.closed = true;
    if (connection.idleTimer) clearTimeout(connection.idleTimer);
    const done = connection.chain.then(async () => {
      if (!connection.lease) return;
      try {
        let status = readyStatusOf(await this.pool.pglite.execProtocolRaw(SYNC));
        if (status !== 'I') status = readyStatusOf(await this.pool.pglite.execProtocolRaw(ROLLBACK));
      } finally {
        this.#release(connection);
      }
    });
    connection.chain = done.catch(() => undefined);
    return connection.chain as Promise<void>;
  }
}

export interface PGliteSocketServer {
  /** Directory of the socket: node-postgres connects with `host` set to it and `port` SOCKET_PORT. */
  readonly socketDir: string;
  readonly socketPath: string;
  /** Stops accepting, ends open client work (rolled back), and removes the socket. */
  close(): Promise<void>;
}

async function chooseSocketDir(preferred: string): Promise<string> {
  if (path.join(preferred, SOCKET_FILE).length <= MAX_SOCKET_PATH) {
    // Left over from a killed server: the caller owns the data directory lock, so it is ours to replace.
    await fsp.rm(path.join(preferred, SOCKET_FILE), { force: true });
    await fsp.mkdir(preferred, { recursive: true, mode: 0o700 });
    await fsp.chmod(preferred, 0o700);
    return preferred;
  }
  return fsp.mkdtemp(path.join(os.tmpdir(), 'certdesk-'));
}

function listen(server: net.Server, socketPath: string): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    // Created 0600 from the start (the umask applies to bind), not chmod-ed after a window.
    const umask = process.umask(0o177);
    try {
      server.listen(socketPath, () => {
        server.off('error', reject);
        resolve();
      });
    } finally {
      process.umask(umask);
    }
  });
}

/**
 * Serves the pool's PGlite on a unix socket in preferredDir (or a private temporary directory when that
 * path is too long for a socket).
 */
export async function startPGliteSocketServer(pool: PGlitePool, preferredDir: string, options: { heldIdleMs?: number } = {}): Promise<PGliteSocketServer> {
  const dir = await chooseSocketDir(preferredDir);
  const socketPath = path.join(dir, SOCKET_FILE);
  const queue = new PoolBackedQueue(pool, options.heldIdleMs ?? DEFAULT_HELD_IDLE_MS);
  // The handler only calls enqueue, clearQueueForHandler and clearTransactionIfNeeded on its queue.
  const queryQueue = queue as unknown as PGLiteSocketHandlerOptions['queryQueue'];
  const server = net.createServer((socket) => {
    const handler = new PGLiteSocketHandler({ queryQueue, closeOnDetach: true });
    queue.add(handler);
    handler.attach(socket).catch(() => socket.destroy());
  });
  await listen(server, socketPath);
  // Sharing alone never keeps the process alive: a server that failed to listen on its port still exits.
  server.unref();
  await fsp.chmod(socketPath, 0o600);
  let closing: Promise<void> | null = null;
  return {
    socketDir: dir,
    socketPath,
    close() {
      closing ??= (async () => {
        const closed = new Promise<void>((resolve) => server.close(() => resolve()));
        await Promise.all([...queue.connections.values()].map((c) => c.handler.detach(true)));
        await closed;
        await fsp.rm(socketPath, { force: true });
        await fsp.rmdir(dir).catch(() => undefined);
      })();
      return closing;
    },
  };
}
