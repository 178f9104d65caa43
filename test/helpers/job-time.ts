/**
 * Moves the job queue's time forward without sleeping. The queue reads the database's clock (`now()`), which
 * a test cannot move; instead every unfinished job's `run_at` and lease end move back by `ms`, which is the
 * same to the queue as `ms` passing on the database's clock.
 *
 * @example
 * await advanceJobTime(db, 10_001); // the 10 s lease of a stuck worker ran out
 */
import { sql } from 'kysely';
import type { Executor } from '../../src/storage/database.js';

export async function advanceJobTime(db: Executor, ms: number): Promise<void> {
  await sql`
    UPDATE jobs SET run_at = run_at - ${ms}::bigint * interval '1 millisecond',
                    locked_until = locked_until - ${ms}::bigint * interval '1 millisecond'
    WHERE state IN ('queued', 'running')`.execute(db);
}
