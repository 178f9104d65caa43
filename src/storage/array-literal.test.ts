import assert from 'node:assert/strict';
import { sql } from 'kysely';
import fc from 'fast-check';
import { it } from 'node:test';
import { describeOnEachDatabase } from '../../test/helpers/database.js';
import { arrayLiteral } from './array-literal.js';

describeOnEachDatabase('arrayLiteral', (getDb) => {
  it('the database reads back exactly the values, whatever characters they hold', async () => {
    const { db } = getDb();
    // PostgreSQL text cannot hold NUL.
    const texts = fc.array(fc.string({ maxLength: 12 }).filter((s) => !s.includes('\u0000')), { maxLength: 6 });
    await fc.assert(
      fc.asyncProperty(texts, async (values) => {
        const { rows } = await sql<{ v: string[] }>`SELECT ${arrayLiteral(values)}::text[] AS v`.execute(db);
        assert.deepEqual(rows[0]!.v, values);
      }),
      { numRuns: 60 },
    );
  });

  it('keeps one statement text for any number of values', () => {
    const a = sql`SELECT 1 WHERE x = ANY(${arrayLiteral(['a'])}::text[])`.compile(getDb().db).sql;
    const b = sql`SELECT 1 WHERE x = ANY(${arrayLiteral(['a', 'b', 'c'])}::text[])`.compile(getDb().db).sql;
    assert.equal(a, b);
  });
});
