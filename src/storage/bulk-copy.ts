/**
 * Bulk writes with PostgreSQL's `COPY ... FROM STDIN`, all or nothing: one transaction, the rows split into
 * segments of `rowsPerSegment` rows (one COPY statement each), encoded in binary COPY format
 * (copy-binary.ts) and written in ~1 MB chunks with backpressure, so memory stays flat however many rows
 * there are.
 *
 * Segments keep each statement's trigger transition table small enough to stay in memory: one COPY of a
 * million rows spills it to disk and then aggregates it all at the end.
 *
 * The end of a segment is where the server does the statement's deferred work: the foreign-key checks of
 * every row (queued as AFTER triggers) and the statement-level triggers. Meanwhile the caller's rows keep
 * being encoded (up to HELD_BYTES of them), so that work on the server overlaps the client's instead of
 * waiting for it; the held chunks go into the next segment's COPY as soon as the previous one completed.
 *
 * Only a PostgreSQL server speaks COPY; embedded PGlite (also through `serve`'s socket) takes INSERTs:
 * ask `supportsBulkCopy` first.
 *
 * @example
 * if (supportsBulkCopy(handle)) await copyRowsInTransaction(handle, batches, { sql: 'COPY t (a, b) FROM STDIN', rowsPerSegment: 25_000, columnTypes: ['text', 'uuid'] });
 */
import type { Writable } from 'node:stream';
import { finished } from 'node:stream/promises';
import { from as copyFrom } from 'pg-copy-streams';
import { BinaryCopyEncoder, type CopyColumnType } from './copy-binary.js';
import type { DatabaseHandle } from './database.js';

/** Encoded bytes handed to the COPY stream at once. */
const CHUNK_BYTES = 1024 * 1024;
/** Bytes the COPY stream may buffer before the writer waits for the socket to drain. */
const STREAM_HIGH_WATER = 8 * 1024 * 1024;
/** Encoded bytes of the next segment held in memory while the previous one completes on the server. */
const HELD_BYTES = 48 * 1024 * 1024;

export interface BulkCopyOptions {
  /** The statement without its format, e.g. `COPY orders (a, b) FROM STDIN`; `WITH (FORMAT binary)` is added. */
  sql: string;
  rowsPerSegment: number;
  /** `SET LOCAL work_mem` for the transaction (e.g. '64MB'), so trigger transition tables stay in memory. */
  workMem?: string;
  /** The type of each column, in the statement's order. */
  columnTypes: readonly CopyColumnType[];
}

export type CopyValues = ReadonlyArray<string | null>;

/** The server refused a row: `cause` is its error, `rowNumber` the 1-based row over all segments, when it said. */
export class BulkCopyError extends Error {
  override name = 'BulkCopyError';

  constructor(
    override readonly cause: unknown,
    readonly rowNumber: number | null,
    /** The 0-based index of the first row of the segment (COPY statement) the server refused. */
    readonly segmentFirstRow: number,
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

interface Segment {
  /** 0-based index over all rows of the segment's first row. */
  firstRow: number;
  stream: Writable;
  error: unknown;
}

/**
 * Writes every row, or none. `batches` yields arrays of rows (a batch per input chunk keeps the per-row
 * overhead of async iteration away). An error thrown by `batches` itself (bad input) aborts the COPY and is
 * rethrown as it is, unless the server had already refused an earlier row; an error of the server is a
 * `BulkCopyError`.
 * @returns the number of rows written.
 */
export async function copyRowsInTransaction(handle: DatabaseHandle, batches: AsyncIterable<ReadonlyArray<CopyValues>>, options: BulkCopyOptions): Promise<number> {
  if (!supportsBulkCopy(handle)) throw new Error('COPY needs a PostgreSQL server (DATABASE_URL)');
  const sql = `${options.sql} WITH (FORMAT binary)`;
  const encoder = new BinaryCopyEncoder(options.columnTypes, CHUNK_BYTES);
  const client = await handle.pgPool!.connect();
  let broken = false;
  let written = 0;
  let rowsInSegment = 0;
  // The segment being written (null while the previous one completes), and the previous one completing.
  let current: Segment | null = null;
  let completing: { segment: Segment; done: Promise<void>; settled: boolean } | null = null;
  // Chunks of the current segment encoded while the previous one completes on the server.
  let held: Buffer[] = [];
  let heldBytes = 0;
  let nextFirstRow = 0;
  // The segment whose server error is being reported.
  let failed: Segment | null = null;

  const open = (): Segment => {
    const segment: Segment = { firstRow: nextFirstRow, stream: client.query(copyFrom(sql, { highWaterMark: STREAM_HIGH_WATER })), error: null };
    segment.stream.on('error', (err) => (segment.error ??= err));
    segment.stream.write(BinaryCopyEncoder.header);
    return segment;
  };
  /** Reports the server's refusal of `segment` (its stream's error, else the error at hand). */
  const serverError = (segment: Segment, err?: unknown): never => {
    segment.error ??= err ?? new Error('the COPY stream closed early');
    failed = segment;
    throw segment.error;
  };
  /** Waits for the previous segment to complete, then opens the current one with the held chunks. */
  const openAfterCompleting = async (): Promise<Segment> => {
    if (completing) {
      const previous = completing;
      await previous.done.catch((err) => serverError(previous.segment, err));
      completing = null;
    }
    const segment = open();
    for (const chunk of held) segment.stream.write(chunk);
    held = [];
    heldBytes = 0;
    current = segment;
    return segment;
  };
  const send = async (chunk: Buffer): Promise<void> => {
    if (current === null && completing !== null && !completing.settled && heldBytes + chunk.length <= HELD_BYTES) {
      held.push(chunk);
      heldBytes += chunk.length;
      return;
    }
    const segment = current ?? (await openAfterCompleting());
    if (segment.error) serverError(segment);
    if (!segment.stream.write(chunk)) await drained(segment.stream, () => segment.error).catch((err) => serverError(segment, err));
  };
  const flush = async (): Promise<void> => {
    const chunk = encoder.take();
    if (chunk !== null) await send(chunk);
  };
  /** Ends the current segment's COPY; the server completes it while the next rows are encoded. */
  const endSegment = async (final = false): Promise<void> => {
    // Nothing written since the last segment ended: no empty COPY (except the only one of an empty input).
    if (final && current === null && rowsInSegment === 0 && encoder.pending === 0) return;
    await flush();
    const segment = current ?? (await openAfterCompleting());
    segment.stream.write(BinaryCopyEncoder.trailer);
    segment.stream.end();
    const state = { segment, done: finished(segment.stream), settled: false };
    state.done.then(
      () => (state.settled = true),
      () => (state.settled = true),
    );
    completing = state;
    current = null;
    nextFirstRow += rowsInSegment;
    rowsInSegment = 0;
  };

  try {
    await client.query('BEGIN');
    if (options.workMem) await client.query(`SET LOCAL work_mem = '${options.workMem.replace(/[^0-9A-Za-z]/g, '')}'`);
    current = open();
    try {
      for await (const batch of batches) {
        for (const values of batch) {
          encoder.row(values);
          written++;
          rowsInSegment++;
          if (rowsInSegment >= options.rowsPerSegment) await endSegment();
          else if (encoder.pending >= CHUNK_BYTES) await flush();
        }
      }
      await endSegment(true);
      const last = completing as { segment: Segment; done: Promise<void> } | null;
      if (last) await last.done.catch((err) => serverError(last.segment, err));
      completing = null;
    } catch (err) {
      if (failed) throw err;
      // Our side failed (a bad row, an unreadable input). The rows before it are complete: finish their
      // segment instead of aborting it, so that the server checks them (keys, foreign keys) and a refusal
      // of an earlier row is the error reported, as the first problem of the input. Then roll back.
      const segment = current as Segment | null;
      if (segment?.error) serverError(segment);
      await endSegment(true).catch((e) => {
        if (failed) throw e;
      });
      const last = completing as { segment: Segment; done: Promise<void> } | null;
      if (last) await last.done.catch((e) => serverError(last.segment, e));
      throw err;
    }
    await client.query('COMMIT');
    return written;
  } catch (err) {
    await client.query('ROLLBACK').catch(() => (broken = true));
    const refused = failed as Segment | null;
    if (refused !== null) {
      const line = copyLineOf(refused.error);
      throw new BulkCopyError(refused.error, line === null ? null : line + refused.firstRow, refused.firstRow);
    }
    if (isServerError(err)) throw new BulkCopyError(err, null, nextFirstRow);
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
