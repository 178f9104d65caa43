/**
 * What every command needs: the configuration (flags over environment) and, for most, an open, migrated
 * database that is closed again however the command ends.
 */
import path from 'node:path';
import type { Command } from 'commander';
import { loadConfig, settings, type Config } from '../config.js';
import { openDatabase, type DatabaseHandle } from '../storage/database.js';
import { migrate } from '../storage/migrate.js';
import { DataDirInUseError, type OwnerRole } from '../storage/embedded/data-dir-lock.js';
import { openThroughServer, ServerNotReachableError } from '../storage/embedded/served-database.js';

/** Errors whose message is the whole story: printed as one line, exit code 1, no stack. */
export class UsageError extends Error {
  override name = 'UsageError';
}

export function configFrom(command: Command): Config {
  const opts = command.optsWithGlobals() as Record<string, string | undefined>;
  const flags: Record<string, string> = {};
  for (const s of settings) {
    if (!s.flag) continue;
    const camel = s.flag.replace(/-([a-z])/g, (_m, c: string) => c.toUpperCase());
    const value = opts[camel];
    if (value !== undefined) flags[s.key] = String(value);
  }
  return loadConfig(process.env, flags);
}

/**
 * Opens the configured database. An embedded directory has one owner: `serve` holds it and shares it
 * over a unix socket, so a command run meanwhile goes through the running server; anything else that
 * finds the directory taken refuses with one line (never writes into a copy that would be lost).
 */
export async function openConfiguredDatabase(config: Config, owner: OwnerRole = 'command'): Promise<DatabaseHandle> {
  const pgliteDir = path.join(config.dataDir, 'pglite');
  try {
    return await openDatabase({ databaseUrl: config.databaseUrl, pgliteDir, poolSize: config.databasePoolSize, owner });
  } catch (err) {
    if (!(err instanceof DataDirInUseError)) throw err;
    const holder = err.owner;
    if (owner === 'command' && holder?.role === 'serve' && err.liveness === 'alive') {
      if (holder.socketDir === null) throw new UsageError(`certdesk serve (pid ${holder.pid}) is starting or stopping on ${err.directory}; try again in a moment`);
      try {
        return await openThroughServer(err.directory, { ...holder, socketDir: holder.socketDir });
      } catch (reach) {
        if (!(reach instanceof ServerNotReachableError)) throw reach;
        throw new UsageError(`cannot reach certdesk serve (pid ${holder.pid}) on ${err.directory} through its socket (${reach.message}); try again, or stop the server first`);
      }
    }
    throw new UsageError(inUseMessage(err, owner));
  }
}

function inUseMessage(err: DataDirInUseError, wanted: OwnerRole): string {
  const holder = err.owner;
  if (!holder) return err.message;
  const where = err.liveness === 'unknown' ? ` on host ${holder.hostname}` : '';
  if (holder.role === 'serve') {
    return `the embedded database ${err.directory} is already served by certdesk serve (pid ${holder.pid}${where}); stop it first, or give this ${wanted === 'serve' ? 'server' : 'command'} another --data-dir`;
  }
  return `the embedded database ${err.directory} is in use by another certdesk command (pid ${holder.pid}${where}); run this one when it has finished`;
}

/** Opens and migrates the database, runs fn, and always closes the database. */
export async function withDatabase<T>(config: Config, fn: (handle: DatabaseHandle) => Promise<T>): Promise<T> {
  const handle = await openConfiguredDatabase(config);
  try {
    await migrate(handle);
    return await fn(handle);
  } finally {
    await handle.close();
  }
}

/** Prints a result as JSON (--json) or as text lines. */
export function output(json: boolean, value: unknown, text: () => string): void {
  process.stdout.write(json ? `${JSON.stringify(value, null, 2)}\n` : `${text()}\n`);
}
