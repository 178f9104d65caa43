/**
 * Bulk writes with PostgreSQL's `COPY ... FROM STDIN`, all or nothing: one transaction, the rows split into
 * segments of `rowsPerSegment` rows (one COPY statement each), encoded as COPY text and written in ~256 KB
 * chunks that wait for 'drain' (backpressure), so memory stays flat however many rows there are.
 *
 * Segments keep each statement's trigger transition table small enough to stay in memory: one COPY of a
 * million rows spills it to disk and then aggregates it all at the end.
 *
 * Only a PostgreSQL server speaks COPY; embedded PGlite (also through `serve`'s socket) takes INSERTs:
 * ask `supportsBulkCopy` first.
 *
 * @example
 * if (supportsBulkCopy(handle)) await copyRowsInTransaction(handle, rows, { sql: 'COPY t (a, b) FROM STDIN', rowsPerSegment: 25_000 });
 */
import { finished } from 'node:stream/promises';
import type { Writable } from 'node:stream';
import { from as copyFrom } from 'pg-copy-streams';
import { copyRow } from './copy-text.js';
import type { DatabaseHandle } from './database.js';

const COPY_CHUNK_CHARS = 256 * 1024;

export interface BulkCopyOptions {
  /** The statement, e.g. `COPY orders (a, b) FROM STDIN` (text format). */
  sql: string;
  rowsPerSegment: number;
  /** `SET LOCAL work_mem` for the transaction (e.g. '64MB'), so trigger transition tables stay in memory. */
  workMem?: string;
}

/** The server refused a row: `cause` is its error, `rowNumber` the 1-based row over all segments, when it said. */
export class BulkCopyError extends Error {
  override name = 'BulkCopyError';

  constructor(
    override readonly cause: unknown,
    readonly rowNumber: number | null,
  ) {
    super(cause instanceof Error ? cause.message : String(cause));
  }
}

/** True when the handle reaches a PostgreSQL server that accepts COPY FROM STDIN. */
export function supportsBulkCopy(handle: DatabaseHandle): boolean {
  return handle.kind === 'postgres' && handle.pgPool !== null && handle.pgPool !== undefined;
}

/** Waits for 'drain', or fails as soon as the stream errors or closes (a COPY the server refused). */
function drained(stream: Writable, failure: () => unknown): Promise<void> {
  return new Promise((resolve, reject) => {
    const settle = (err?: unknown) => {
      stream.off('drain', onDrain);
      stream.off('error', onError);
      stream.off('close', onClose);
      if (err) reject(err instanceof Error ? err : new Error(String(err)));
      else resolve();
    };
    const onDrain = () => settle();
    const onError = (err: unknown) => settle(err);
    const onClose = () => settle(failure() ?? new Error('the COPY stream closed early'));
    if (stream.destroyed) return settle(failure() ?? new Error('the COPY stream closed early'));
    stream.on('drain', onDrain);
    stream.on('error', onError);
    stream.on('close', onClose);
  });
}

/** The 1-based line of the current COPY statement at which the server stopped (`COPY t, line N`). */
function copyLineOf(err: unknown): number | null {
  const where = (err as { where?: unknown })?.where;
  const m = typeof where === 'string' ? /COPY \S+, line (\d+)/.exec(where) : null;
  return m ? Number(m[1]) : null;
}

/**
 * Writes every row, or none. An error thrown by `rows` itself (bad input) aborts the COPY and is rethrown
 * as it is; an error of the server is a `BulkCopyError`.
 * @returns the number of rows written.
 */
export async function copyRowsInTransaction(
  handle: DatabaseHandle,
  rows: AsyncIterable<ReadonlyArray<string | null>>,
  options: BulkCopyOptions,
): Promise<number> {
  if (!supportsBulkCopy(handle)) throw new Error('COPY needs a PostgreSQL server (DATABASE_URL)');
  const client = await handle.pgPool!.connect();
  let broken = false;
  // Rows written by the segments that already completed: a segment's line numbers start at 1.
  let rowOffset = 0;
  let written = 0;
  let copyError: unknown = null;
  try {
    await client.query('BEGIN');
    if (options.workMem) await client.query(`SET LOCAL work_mem = '${options.workMem.replace(/[^0-9A-Za-z]/g, '')}'`);
    const startCopy = () => {
      copyError = null;
      const stream = client.query(copyFrom(options.sql));
      stream.on('error', (err) => (copyError = err));
      return stream;
    };
    let copy = startCopy();
    try {
      let chunk = '';
      let rowsInCopy = 0;
      for await (const values of rows) {
        chunk += copyRow(values);
        rowsInCopy++;
        written++;
        if (rowsInCopy >= options.rowsPerSegment) {
          if (copyError) throw copyError;
          copy.end(chunk);
          chunk = '';
          await finished(copy);
          rowOffset += rowsInCopy;
          rowsInCopy = 0;
          copy = startCopy();
        } else if (chunk.length >= COPY_CHUNK_CHARS) {
          if (copyError) throw copyError;
          const ok = copy.write(chunk);
          chunk = '';
          if (!ok) await drained(copy, () => copyError);
        }
      }
      if (copyError) throw copyError;
      copy.end(chunk);
      await finished(copy);
    } catch (err) {
      // The server refused the COPY: the stream has already failed and the transaction is aborted.
      if (copyError) throw copyError;
      // Our side failed (a bad row, an unreadable input): abort the COPY (CopyFail) and wait for the server.
      copy.destroy(err instanceof Error ? err : new Error(String(err)));
      await finished(copy).catch(() => undefined);
      throw err;
    }
    await client.query('COMMIT');
    return written;
  } catch (err) {
    await client.query('ROLLBACK').catch(() => (broken = true));
    if (copyError !== null && err === copyError) {
      const line = copyLineOf(err);
      throw new BulkCopyError(err, line === null ? null : line + rowOffset);
    }
    if (isServerError(err)) throw new BulkCopyError(err, null);
    throw err;
  } finally {
    // A connection whose COPY or rollback failed is not reused.
    client.release(broken);
  }
}

/** An error the server sent (it has a SQLSTATE), as opposed to one of the caller's input. */
function isServerError(err: unknown): boolean {
  const code = (err as { code?: unknown })?.code;
  return typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code) && typeof (err as { severity?: unknown }).severity === 'string';
}
