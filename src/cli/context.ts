/**
 * What every command needs: the configuration (flags over environment) and, for most, an open, migrated
 * database that is closed again however the command ends.
 */
import path from 'node:path';
import type { Command } from 'commander';
import { loadConfig, settings, type Config } from '../config.js';
import { openDatabase, type DatabaseHandle } from '../storage/database.js';
import { migrate } from '../storage/migrate.js';

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

export async function openConfiguredDatabase(config: Config): Promise<DatabaseHandle> {
  return openDatabase({
    databaseUrl: config.databaseUrl,
    pgliteDir: path.join(config.dataDir, 'pglite'),
    poolSize: config.databasePoolSize,
  });
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
