/**
 * `certdesk import`: loads an NDJSON stream of orders into one organization, all or nothing.
 *
 * - PostgreSQL: COPY into `orders` inside one transaction, in segments of ROWS_PER_COPY rows
 *   (storage/bulk-copy.ts: streamed with backpressure, so memory stays flat however large the file). The
 *   primary key refuses a duplicate order id (earlier in the file or already stored) on the row itself;
 *   the row number the server names leads back to the input line.
 * - PGlite: multi-row INSERTs of IMPORT_BATCH rows inside one transaction.
 * In both, the statement-level triggers keep order_counters exact, and any error rolls everything back.
 */
import type { Readable } from 'node:stream';
import { BulkCopyError, copyRowsInTransaction, supportsBulkCopy } from '../../storage/bulk-copy.js';
import type { DatabaseHandle, Executor } from '../../storage/database.js';
import { isUuid } from '../uuid.js';
import { findOrganization } from '../organizations/organization.repository.js';
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
/** Rows per COPY statement: ~25k rows of ~1.3 KB keep the transition table within IMPORT_WORK_MEM. */
export const ROWS_PER_COPY = 25_000;
const IMPORT_WORK_MEM = '64MB';

interface DuplicateKey {
  orderId: string;
  /** 1-based row number within the written rows, when the database says. */
  rowNumber: number | null;
}

/** Recognizes the primary key violation of orders and extracts the order id. */
function duplicateKeyOf(err: unknown, rowNumber: number | null = null): DuplicateKey | null {
  const e = err as { code?: string; detail?: string; message?: string };
  if (e?.code !== '23505') return null;
  const key = /Key \(order_id\)=\((.*)\) already exists/.exec(e.detail ?? e.message ?? '');
  return key ? { orderId: key[1]!, rowNumber } : null;
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
  if (!isUuid(organizationId)) throw new ImportError(`organization id must be a UUID, got "${options.organizationId}"`);
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
  if (supportsBulkCopy(handle)) await copyImport(handle, organizationId, rows, tick, options.rowsPerCopy ?? ROWS_PER_COPY);
  else await batchImport(handle, organizationId, rows, tick);

  const seconds = elapsed();
  options.onProgress?.({ orders, bytes: bytes(), elapsedSeconds: seconds });
  return { organizationId, orders, bytes: bytes(), seconds, ordersPerSecond: seconds > 0 ? Math.round(orders / seconds) : orders };
}

/** Server path: one transaction, COPY in segments of rowsPerCopy rows. */
async function copyImport(handle: DatabaseHandle, organizationId: string, rows: AsyncGenerator<ImportedRow>, tick: () => void, rowsPerCopy: number): Promise<void> {
  // Input line of each COPY row: rows and lines only differ by skipped blank lines, so only those are kept.
  const skipped: number[] = [];
  let expectedLine = 1;
  const lineOfRow = (rowNumber: number | null): number | null => {
    if (rowNumber === null) return null;
    let line = rowNumber;
    for (const s of skipped) if (s <= line) line++;
    return line;
  };
  const values = (async function* () {
    for await (const { line, row } of rows) {
      while (expectedLine < line) skipped.push(expectedLine++);
      expectedLine = line + 1;
      tick();
      yield importValues(row);
    }
  })();
  try {
    await copyRowsInTransaction(handle, values, { sql: COPY_ORDERS_SQL, rowsPerSegment: rowsPerCopy, workMem: IMPORT_WORK_MEM });
  } catch (err) {
    if (!(err instanceof BulkCopyError)) throw err;
    const duplicate = duplicateKeyOf(err.cause, err.rowNumber);
    if (duplicate) throw await explainDuplicate(handle.db, organizationId, duplicate, (n) => lineOfRow(n));
    throw err.cause;
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

