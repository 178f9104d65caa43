/**
 * A certdesk command's view of an embedded database that `certdesk serve` owns: node-postgres over the
 * server's unix socket, one connection (the server runs one unit of work at a time anyway).
 */
import { openDatabase, type DatabaseHandle } from '../database.js';
import type { DataDirOwner } from './data-dir-lock.js';
import { SOCKET_PORT } from './pglite-socket-server.js';

export class ServerNotReachableError extends Error {
  override name = 'ServerNotReachableError';
}

export async function openThroughServer(directory: string, owner: DataDirOwner & { socketDir: string }): Promise<DatabaseHandle> {
  const url = `postgres://postgres@/template1?host=${encodeURIComponent(owner.socketDir)}&port=${SOCKET_PORT}`;
  let handle: DatabaseHandle;
  try {
    // No prepared statements: the server runs every client in PGlite's one session, where names collide.
    handle = await openDatabase({ databaseUrl: url, pgliteDir: null, poolSize: 1, preparedStatements: false });
  } catch (err) {
    throw new ServerNotReachableError((err as Error).message);
  }
  // The same database as the server's: embedded PGlite (no COPY FROM STDIN), reached through its socket.
  return { ...handle, kind: 'pglite', description: `embedded PGlite in ${directory} through certdesk serve (pid ${owner.pid})` };
}
