/**
 * Opening an embedded database directory as its one owner: the directory lock is held from before
 * PGlite opens until after it has closed, and a serving process also shares the database over a unix
 * socket (recorded in the lock) for certdesk commands run while it serves.
 */
import fsp from 'node:fs/promises';
import path from 'node:path';
import type { PGlitePool } from '../pglite-pool.js';
import { acquireDataDirLock, DataDirInUseError, type DataDirLock, type OwnerRole } from './data-dir-lock.js';
import type { PGliteSocketServer } from './pglite-socket-server.js';

/** Where the serving process puts its socket: next to the database directory, `<dir>.socket/`. */
export function socketDirOf(directory: string): string {
  return `${directory}.socket`;
}

async function lockDirectory(directory: string, role: OwnerRole): Promise<DataDirLock> {
  try {
    await fsp.mkdir(path.dirname(directory), { recursive: true });
    return await acquireDataDirLock(directory, role);
  } catch (err) {
    if (err instanceof DataDirInUseError) throw err;
    throw new Error(`data directory ${path.dirname(directory)} is not writable: ${(err as Error).message}`);
  }
}

/**
 * What this module needs of an opened database: its PGlite instance (to share) and its close(). Structural,
 * so that database.ts (which calls this module) stays the only one to know `DatabaseHandle`: no import circle.
 */
export interface OwnedDatabase {
  pglite: PGlitePool | null;
  close(): Promise<void>;
}

/**
 * Opens the directory with `open` while holding its lock; `serve` also shares it over a socket.
 * The returned handle's close() stops sharing, closes the database, then releases the lock.
 * @throws DataDirInUseError when another live process owns the directory.
 */
export async function ownEmbeddedDirectory<H extends OwnedDatabase>(dir: string, role: OwnerRole, open: () => Promise<H>): Promise<H> {
  const directory = path.resolve(dir);
  const lock = await lockDirectory(directory, role);
  let handle: H;
  try {
    handle = await open();
  } catch (err) {
    await lock.release();
    throw err;
  }
  let sharing: PGliteSocketServer | null = null;
  if (role === 'serve' && handle.pglite) {
    try {
      const { startPGliteSocketServer } = await import('./pglite-socket-server.js');
      sharing = await startPGliteSocketServer(handle.pglite, socketDirOf(directory));
      await lock.setSocketDir(sharing.socketDir);
    } catch (err) {
      await sharing?.close();
      await handle.close();
      await lock.release();
      throw err;
    }
  }
  const closeDatabase = handle.close;
  let closing: Promise<void> | null = null;
  handle.close = () =>
    (closing ??= (async () => {
      try {
        if (sharing) {
          // Commands started from now on are told the server is stopping, instead of failing to connect.
          await lock.setSocketDir(null);
          await sharing.close();
        }
        await closeDatabase();
      } finally {
        await lock.release();
      }
    })());
  return handle;
}
