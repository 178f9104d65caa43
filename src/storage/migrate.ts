/**
 * Versioned SQL migrations: migrations/NNNN_name.sql, applied in order, each recorded in schema_migrations
 * with its checksum. All pending files run in one transaction under an advisory lock, so several instances
 * starting together apply them once, and a failing file leaves the schema as it was.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { migrationsDir } from '../paths.js';
import type { DatabaseHandle } from './database.js';
import { withScriptConnection } from './script-connection.js';

export interface Migration {
  version: string;
  name: string;
  sql: string;
  checksum: string;
}

export interface MigrationReport {
  applied: string[];
  alreadyApplied: string[];
}

/** An arbitrary constant shared by every certdesk instance: the key of the migration advisory lock. */
const MIGRATION_LOCK_KEY = 4_242_001;

export async function loadMigrations(dir = migrationsDir): Promise<Migration[]> {
  const files = (await fs.readdir(dir)).filter((f) => /^\d{4}_[a-z0-9_]+\.sql$/.test(f)).sort();
  return Promise.all(
    files.map(async (file) => {
      const text = await fs.readFile(path.join(dir, file), 'utf8');
      return {
        version: file.slice(0, 4),
        name: file.slice(5, -4),
        sql: text,
        checksum: createHash('sha256').update(text).digest('hex'),
      };
    }),
  );
}

export class MigrationError extends Error {
  override name = 'MigrationError';
}

export async function migrate(handle: DatabaseHandle, migrations?: Migration[]): Promise<MigrationReport> {
  const all = migrations ?? (await loadMigrations());
  return withScriptConnection(handle, async (run) => {
    await run('BEGIN');
    try {
      await run('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK_KEY]);
      await run(`CREATE TABLE IF NOT EXISTS schema_migrations (
        version text PRIMARY KEY, name text NOT NULL, checksum text NOT NULL,
        applied_at timestamptz NOT NULL DEFAULT now())`);
      const rows = await run('SELECT version, checksum FROM schema_migrations');
      const done = new Map(rows.map((r) => [String(r.version), String(r.checksum)]));
      const report: MigrationReport = { applied: [], alreadyApplied: [] };
      for (const m of all) {
        const recorded = done.get(m.version);
        if (recorded !== undefined) {
          if (recorded !== m.checksum) {
            throw new MigrationError(`migration ${m.version}_${m.name} was changed after it was applied`);
          }
          report.alreadyApplied.push(`${m.version}_${m.name}`);
          continue;
        }
        try {
          await run(m.sql);
        } catch (err) {
          throw new MigrationError(`migration ${m.version}_${m.name} failed: ${(err as Error).message}`);
        }
        await run('INSERT INTO schema_migrations (version, name, checksum) VALUES ($1, $2, $3)', [m.version, m.name, m.checksum]);
        report.applied.push(`${m.version}_${m.name}`);
      }
      await run('COMMIT');
      return report;
    } catch (err) {
      await run('ROLLBACK').catch(() => undefined);
      throw err;
    }
  });
}
