import assert from 'node:assert/strict';
import { it } from 'node:test';
import { sql } from 'kysely';
import { describeOnEachDatabase } from '../../test/helpers/database.js';
import { loadMigrations, migrate, MigrationError } from './migrate.js';

describeOnEachDatabase('migrations', (getDb) => {

  it('records every migration once and applies nothing the second time', async () => {
    const files = await loadMigrations();
    const again = await migrate(getDb());
    assert.deepEqual(again.applied, []);
    assert.deepEqual(again.alreadyApplied, files.map((m) => `${m.version}_${m.name}`));
    const rows = await getDb().db.selectFrom('schema_migrations').select(['version']).orderBy('version').execute();
    assert.deepEqual(rows.map((r) => r.version), files.map((m) => m.version));
  });

  it('refuses a migration whose text changed after it was applied', async () => {
    const files = await loadMigrations();
    const edited = files.map((m, i) => (i === 0 ? { ...m, checksum: 'different' } : m));
    await assert.rejects(migrate(getDb(), edited), MigrationError);
  });

  it('rolls back every statement of a failing migration', async () => {
    const files = await loadMigrations();
    const broken = { version: '9999', name: 'broken', checksum: 'x', sql: 'CREATE TABLE half_written (id int); SELECT no_such_column FROM half_written;' };
    await assert.rejects(migrate(getDb(), [...files, broken]), /9999_broken failed/);
    const exists = await sql<{ t: string | null }>`SELECT to_regclass('half_written')::text AS t`.execute(getDb().db);
    assert.equal(exists.rows[0]?.t, null);
    const recorded = await getDb().db.selectFrom('schema_migrations').select('version').where('version', '=', '9999').execute();
    assert.equal(recorded.length, 0);
  });
});
