import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { sql } from 'kysely';
import { describeOnEachDatabase } from '../../test/helpers/database.js';
import { isStalePreparedStatement, StatementNames } from './monitored-pg-pool.js';

describe('StatementNames', () => {
  it('names each parameterized text once, leaves parameterless texts unnamed, and stops naming at its cap', () => {
    const names = new StatementNames(2);
    assert.equal(names.nameFor('SELECT 1', 0), undefined, 'no parameters: simple protocol');
    const a = names.nameFor('SELECT $1::int', 1);
    assert.ok(a);
    assert.equal(names.nameFor('SELECT $1::int', 1), a, 'the same text keeps its name');
    const b = names.nameFor('SELECT $1::text', 1);
    assert.ok(b);
    assert.notEqual(a, b);
    assert.equal(names.nameFor('SELECT $1::uuid', 1), undefined, 'beyond the cap: unnamed');
    assert.equal(names.nameFor('SELECT $1::int', 1), a, 'named texts stay named');
    assert.equal(names.size, 2);
  });
});

describe('isStalePreparedStatement', () => {
  it('knows the error by SQLSTATE and by the server routine that raises it, in any message language', () => {
    assert.equal(isStalePreparedStatement({ code: '0A000', routine: 'RevalidateCachedQuery', message: 'le plan en cache ne doit pas modifier le type de résultat' }), true);
    assert.equal(isStalePreparedStatement({ code: '0A000', message: 'cached plan must not change result type' }), true);
    assert.equal(isStalePreparedStatement({ code: '0A000', routine: 'exec_parse_message', message: 'cannot insert multiple commands into a prepared statement' }), false);
    assert.equal(isStalePreparedStatement({ code: '42P01', routine: 'RevalidateCachedQuery' }), false);
    assert.equal(isStalePreparedStatement(null), false);
  });
});

describeOnEachDatabase('queries through the pool', (getDb, target) => {
  it('repeated parameterized queries answer right, prepared once per connection on a server', async () => {
    const { db } = getDb();
    await db.connection().execute(async (conn) => {
      for (const n of [1, 2, 3, 4, 5, 6, 7]) {
        const { rows } = await sql<{ n: number; t: string }>`SELECT ${n}::int AS n, ${`x${n}`}::text AS t`.execute(conn);
        assert.deepEqual(rows, [{ n, t: `x${n}` }]);
      }
      const prepared = await sql<{ statement: string }>`SELECT statement FROM pg_prepared_statements WHERE statement LIKE ${'SELECT $1::int AS n%'}`.execute(conn);
      // PGlite has one in-process connection and no pool: its statements are not named here.
      assert.equal(prepared.rows.length, target.name === 'postgres' ? 1 : 0);
    });
  });

  it('a prepared SELECT * whose table gains a column fails at most once per connection, which is then replaced', async () => {
    const { db } = getDb();
    await sql`CREATE TABLE pool_probe (id int PRIMARY KEY, a text)`.execute(db);
    await sql`INSERT INTO pool_probe VALUES (1, 'one')`.execute(db);
    const read = (executor: typeof db) => sql<{ id: number; a: string; b?: string | null }>`SELECT * FROM pool_probe WHERE id = ${1}::int`.execute(executor);
    let pinnedPid = 0;
    await db.connection().execute(async (conn) => {
      pinnedPid = (await sql<{ pid: number }>`SELECT pg_backend_pid() AS pid`.execute(conn)).rows[0]!.pid;
      assert.deepEqual((await read(conn)).rows, [{ id: 1, a: 'one' }]);
      await sql`ALTER TABLE pool_probe ADD COLUMN b text`.execute(conn);
      if (target.name === 'postgres') {
        await assert.rejects(read(conn), (err) => isStalePreparedStatement(err));
      } else {
        assert.deepEqual((await read(conn)).rows, [{ id: 1, a: 'one', b: null }]);
      }
    });
    // The pool destroyed the condemned connection: the next reads run on a fresh one and see the new column.
    for (let i = 0; i < 3; i++) assert.deepEqual((await read(db)).rows, [{ id: 1, a: 'one', b: null }]);
    if (target.name === 'postgres') {
      const pid = (await sql<{ pid: number }>`SELECT pg_backend_pid() AS pid`.execute(db)).rows[0]!.pid;
      assert.notEqual(pid, pinnedPid);
    }
  });
});
