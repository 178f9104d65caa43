/**
 * `certdesk import`: loads an NDJSON stream of orders into one organization, all or nothing.
 *
 * - PostgreSQL: COPY into `orders` inside one transaction, in segments of ROWS_PER_COPY rows. Rows are
 *   encoded as COPY text and written in ~256 KB chunks, waiting for 'drain' (backpressure), so memory stays
 *   flat however large the file. Segments keep each statement's trigger transition table (every new row)
 *   small enough to stay in memory: one COPY of a million rows spills it to disk and then aggregates it
 *   all at the end. The primary key refuses a duplicate order id (earlier in the file or already stored)
 *   on the row itself; the error's COPY line number plus the segment's offset leads back to the input line.
 * - PGlite: multi-row INSERTs of IMPORT_BATCH rows inside one transaction.
 * In both, the statement-level triggers keep order_counters exact, and any error rolls everything back.
 */
import { finished } from 'node:stream/promises';
import type { Readable, Writable } from 'node:stream';
import { from as copyFrom } from 'pg-copy-streams';
import type { DatabaseHandle, Executor } from '../../storage/database.js';
import { UUID_PATTERN } from '../orders/order-input.schema.js';
import { findOrganization } from '../organizations/organization.repository.js';
import { copyRow } from './copy-text.js';
import { ImportError, readOrderLines, type ImportedRow } from './ndjson-order-reader.js';
import { COPY_ORDERS_SQL, importValues, insertOrderBatch, orderOrganization, projectIdsOf } from './order-import.repository.js';

export { ImportError } from './ndjson-order-reader.js';

export interface ImportProgress {
  orders: number;
  /** Bytes of input consumed so far. */
  bytes: number;
  elapsedSeconds: number;
}

export interface ImportOptions {
  organizationId: string;
  input: Readable;
  /** Called about every progressEvery orders and once at the end. */
  onProgress?: (progress: ImportProgress) => void;
  progressEvery?: number;
  /** Rows per COPY statement on PostgreSQL (default ROWS_PER_COPY); small values let tests cross segments. */
  rowsPerCopy?: number;
}

export interface ImportReport {
  organizationId: string;
  orders: number;
  bytes: number;
  seconds: number;
  ordersPerSecond: number;
}

/** Rows per INSERT on PGlite: large enough to amortize statement overhead, small enough for bind limits. */
export const IMPORT_BATCH = 500;
const COPY_CHUNK_CHARS = 256 * 1024;
/** Rows per COPY statement: ~25k rows of ~1.3 KB keep the transition table within IMPORT_WORK_MEM. */
export const ROWS_PER_COPY = 25_000;
const IMPORT_WORK_MEM = '64MB';

interface DuplicateKey {
  orderId: string;
  /** 1-based row number within the written rows (COPY line), when the database says. */
  rowNumber: number | null;
}

/** Recognizes the primary key violation of orders and extracts the order id. */
function duplicateKeyOf(err: unknown): DuplicateKey | null {
  const e = err as { code?: string; constraint?: string; detail?: string; where?: string; message?: string };
  if (e?.code !== '23505') return null;
  const key = /Key \(order_id\)=\((.*)\) already exists/.exec(e.detail ?? e.message ?? '');
  if (!key) return null;
  const line = /COPY orders, line (\d+)/.exec(e.where ?? '');
  return { orderId: key[1]!, rowNumber: line ? Number(line[1]) : null };
}

/** Rewrites a duplicate-key failure as an ImportError naming the order id and line. */
async function explainDuplicate(db: Executor, organizationId: string, duplicate: DuplicateKey, lineOf: (rowNumber: number | null, orderId: string) => number | null): Promise<ImportError> {
  const owner = await orderOrganization(db, duplicate.orderId).catch(() => undefined);
  const line = lineOf(duplicate.rowNumber, duplicate.orderId);
  const where =
    owner === undefined
      ? 'appears earlier in the file'
      : owner === organizationId
        ? 'already exists in this organization (import only adds new orders)'
        : 'already belongs to another organization';
  return new ImportError(`order_id: duplicate order id "${duplicate.orderId}": it ${where}; nothing was imported`, line);
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

/** Surfaces an error of the input stream (unreadable file, broken pipe) instead of a silent stall. */
function watchInput(input: Readable): { check(): void } {
  let failure: Error | null = null;
  input.on('error', (err) => (failure = err));
  return {
    check() {
      if (failure) throw new ImportError(`cannot read the input: ${failure.message}`);
    },
  };
}

/**
 * Imports every order of options.input into the organization, or nothing.
 * @throws ImportError with a one-line, operator-readable message.
 */
export async function importOrders(handle: DatabaseHandle, options: ImportOptions): Promise<ImportReport> {
  const organizationId = options.organizationId.toLowerCase();
  if (!new RegExp(UUID_PATTERN).test(organizationId)) throw new ImportError(`organization id must be a UUID, got "${options.organizationId}"`);
  if (!(await findOrganization(handle.db, organizationId))) throw new ImportError(`no organization with id ${organizationId}`);
  const projectIds = await projectIdsOf(handle.db, organizationId);
  let bytesRead = 0;
  const bytes = () => bytesRead;
  const inputState = watchInput(options.input);
  const started = process.hrtime.bigint();
  const elapsed = () => Number(process.hrtime.bigint() - started) / 1e9;
  const every = options.progressEvery ?? 50_000;
  let orders = 0;
  const tick = () => {
    orders++;
    if (orders % every === 0) options.onProgress?.({ orders, bytes: bytes(), elapsedSeconds: elapsed() });
  };
  const rows = (async function* () {
    for await (const r of readOrderLines(options.input, organizationId, projectIds, (n) => (bytesRead += n))) {
      inputState.check();
      yield r;
    }
    inputState.check();
  })();

  // COPY FROM STDIN needs a PostgreSQL server; embedded PGlite (also through `serve`'s socket) takes INSERTs.
  if (handle.pgPool && handle.kind === 'postgres') await copyImport(handle, organizationId, rows, tick, options.rowsPerCopy ?? ROWS_PER_COPY);
  else await batchImport(handle, organizationId, rows, tick);

  const seconds = elapsed();
  options.onProgress?.({ orders, bytes: bytes(), elapsedSeconds: seconds });
  return { organizationId, orders, bytes: bytes(), seconds, ordersPerSecond: seconds > 0 ? Math.round(orders / seconds) : orders };
}

/** Server path: one transaction, COPY in segments of rowsPerCopy rows, chunked writes with backpressure. */
async function copyImport(handle: DatabaseHandle, organizationId: string, rows: AsyncGenerator<ImportedRow>, tick: () => void, rowsPerCopy: number): Promise<void> {
  const client = await handle.pgPool!.connect();
  // Input line of each COPY row: rows and lines only differ by skipped blank lines, so only those are kept.
  const skipped: number[] = [];
  let expectedLine = 1;
  const lineOfRow = (rowNumber: number | null): number | null => {
    if (rowNumber === null) return null;
    let line = rowNumber;
    for (const s of skipped) if (s <= line) line++;
    return line;
  };
  let broken = false;
  // Rows written by the COPY segments that already completed: a segment's line numbers start at 1.
  let rowOffset = 0;
  try {
    await client.query('BEGIN');
    await client.query(`SET LOCAL work_mem = '${IMPORT_WORK_MEM}'`);
    let copyError: unknown = null;
    const startCopy = () => {
      copyError = null;
      const stream = client.query(copyFrom(COPY_ORDERS_SQL));
      stream.on('error', (err) => (copyError = err));
      return stream;
    };
    let copy = startCopy();
    try {
      let chunk = '';
      let rowsInCopy = 0;
      for await (const { line, row } of rows) {
        while (expectedLine < line) skipped.push(expectedLine++);
        expectedLine = line + 1;
        chunk += copyRow(importValues(row));
        rowsInCopy++;
        tick();
        if (rowsInCopy >= rowsPerCopy) {
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
      // Our side failed (a bad line, an unreadable input): abort the COPY (CopyFail) and wait for the server.
      copy.destroy(err instanceof Error ? err : new Error(String(err)));
      await finished(copy).catch(() => undefined);
      throw err;
    }
    await client.query('COMMIT');
  } catch (err) {
    await client.query('ROLLBACK').catch(() => (broken = true));
    const duplicate = duplicateKeyOf(err);
    if (duplicate) throw await explainDuplicate(handle.db, organizationId, duplicate, (n) => lineOfRow(n === null ? null : n + rowOffset));
    throw err;
  } finally {
    // A connection whose COPY or rollback failed is not reused.
    client.release(broken);
  }
}

/** Embedded path: batched multi-row INSERTs in one transaction. */
async function batchImport(handle: DatabaseHandle, organizationId: string, rows: AsyncGenerator<ImportedRow>, tick: () => void): Promise<void> {
  let batch: ImportedRow[] = [];
  try {
    await handle.db.transaction().execute(async (trx) => {
      const flush = async () => {
        const current = batch;
        batch = [];
        try {
          await insertOrderBatch(trx, current.map((r) => r.row));
        } catch (err) {
          batch = current; // kept to name the line of a duplicate
          throw err;
        }
      };
      for await (const r of rows) {
        batch.push(r);
        tick();
        if (batch.length >= IMPORT_BATCH) await flush();
      }
      await flush();
    });
  } catch (err) {
    const duplicate = duplicateKeyOf(err);
    if (duplicate) {
      throw await explainDuplicate(handle.db, organizationId, duplicate, (_n, orderId) => {
        const hits = batch.filter((r: ImportedRow) => r.row.order_id === orderId);
        // Twice in the same batch: the second one is the duplicate.
        return (hits[1] ?? hits[0])?.line ?? null;
      });
    }
    throw err;
  }
}

