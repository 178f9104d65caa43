/**
 * `certdesk import`: loads an NDJSON stream of orders into one organization, all or nothing.
 *
 * - PostgreSQL: binary COPY into `orders` inside one transaction, in segments of ROWS_PER_COPY rows
 *   (storage/bulk-copy.ts: streamed with backpressure, so memory stays flat however large the file; the
 *   next segment is encoded while the server completes the previous one). The primary key refuses a
 *   duplicate order id (earlier in the file or already stored) on the row itself; the row number the
 *   server names leads back to the input line. The foreign keys are checked by the server at the end of
 *   each segment (the row's AFTER triggers): a project deleted during the import is named with the first
 *   line of that segment that refers to it.
 * - PGlite: multi-row INSERTs of IMPORT_BATCH rows inside one transaction.
 * In both, the statement-level triggers keep order_counters exact, any error rolls everything back, and
 * the error reported is the first problem of the input: the rows before a bad line are checked first.
 */
import type { Readable } from 'node:stream';
import { BulkCopyError, copyRowsInTransaction, supportsBulkCopy } from '../../storage/bulk-copy.js';
import type { DatabaseHandle, Executor } from '../../storage/database.js';
import { isUuid } from '../uuid.js';
import { findOrganization } from '../organizations/organization.repository.js';
import { ImportError, readOrderBatches, type ImportedRow } from './ndjson-order-reader.js';
import { COPY_ORDERS_SQL, IMPORT_COLUMN_TYPES, importValues, insertOrderBatch, orderOrganization, projectIdsOf } from './order-import.repository.js';

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
  const started = process.hrtime.bigint();
  const elapsed = () => Number(process.hrtime.bigint() - started) / 1e9;
  const every = options.progressEvery ?? 50_000;
  let orders = 0;
  const tick = () => {
    orders++;
    if (orders % every === 0) options.onProgress?.({ orders, bytes: bytes(), elapsedSeconds: elapsed() });
  };
  const rows = readOrderBatches(options.input, organizationId, projectIds, (n) => (bytesRead += n));

  // COPY FROM STDIN needs a PostgreSQL server; embedded PGlite (also through `serve`'s socket) takes INSERTs.
  if (supportsBulkCopy(handle)) await copyImport(handle, organizationId, rows, tick, options.rowsPerCopy ?? ROWS_PER_COPY);
  else await batchImport(handle, organizationId, rows, tick);

  const seconds = elapsed();
  options.onProgress?.({ orders, bytes: bytes(), elapsedSeconds: seconds });
  return { organizationId, orders, bytes: bytes(), seconds, ordersPerSecond: seconds > 0 ? Math.round(orders / seconds) : orders };
}

/** Server path: one transaction, binary COPY in segments of rowsPerCopy rows. */
async function copyImport(handle: DatabaseHandle, organizationId: string, batches: AsyncGenerator<ImportedRow[]>, tick: () => void, rowsPerCopy: number): Promise<void> {
  // Input line of each COPY row: rows and lines only differ by skipped blank lines, so only those are kept.
  const skipped: number[] = [];
  let expectedLine = 1;
  const lineOfRow = (rowNumber: number | null): number | null => {
    if (rowNumber === null) return null;
    let line = rowNumber;
    for (const s of skipped) if (s <= line) line++;
    return line;
  };
  // Per segment, the first row (0-based) of each project id: the foreign-key checks run at the end of the
  // segment's COPY, and the server's error names the key but no row. A handful of entries per segment.
  const projectRows: Array<Map<string, number>> = [];
  let rowIndex = 0;
  const values = (async function* () {
    for await (const batch of batches) {
      const out: Array<Array<string | null>> = new Array(batch.length);
      for (let i = 0; i < batch.length; i++) {
        const { line, row } = batch[i]!;
        while (expectedLine < line) skipped.push(expectedLine++);
        expectedLine = line + 1;
        if (row.project_id !== null) {
          const segment = Math.floor(rowIndex / rowsPerCopy);
          const firstRows = (projectRows[segment] ??= new Map());
          if (!firstRows.has(row.project_id)) firstRows.set(row.project_id, rowIndex);
        }
        rowIndex++;
        tick();
        out[i] = importValues(row);
      }
      yield out;
    }
  })();
  try {
    await copyRowsInTransaction(handle, values, { sql: COPY_ORDERS_SQL, rowsPerSegment: rowsPerCopy, workMem: IMPORT_WORK_MEM, columnTypes: IMPORT_COLUMN_TYPES });
  } catch (err) {
    if (!(err instanceof BulkCopyError)) throw err;
    const duplicate = duplicateKeyOf(err.cause, err.rowNumber);
    if (duplicate) throw await explainDuplicate(handle.db, organizationId, duplicate, (n) => lineOfRow(n));
    const missing = missingReferenceOf(err.cause);
    if (missing?.column === 'project_id') {
      const first = projectRows[Math.floor(err.segmentFirstRow / rowsPerCopy)]?.get(missing.key.toLowerCase());
      throw new ImportError(
        `project_id: no project with this id in organization ${organizationId} (deleted during the import); nothing was imported`,
        first === undefined ? null : lineOfRow(first + 1),
      );
    }
    if (missing?.column === 'organization_id') throw new ImportError(`organization ${organizationId} was deleted during the import; nothing was imported`);
    const message = err.cause instanceof Error ? err.cause.message : String(err.cause);
    if (err.rowNumber !== null) throw new ImportError(`the database refused the order: ${message}; nothing was imported`, lineOfRow(err.rowNumber));
    throw err.cause;
  }
}

/** Recognizes a foreign-key violation of orders: `Key (project_id)=(...) is not present in table "projects".` */
function missingReferenceOf(err: unknown): { column: string; key: string } | null {
  const e = err as { code?: string; detail?: string };
  if (e?.code !== '23503') return null;
  const m = /Key \((\w+)\)=\((.*)\) is not present/.exec(e.detail ?? '');
  return m ? { column: m[1]!, key: m[2]! } : null;
}

/** Embedded path: batched multi-row INSERTs in one transaction. */
async function batchImport(handle: DatabaseHandle, organizationId: string, batches: AsyncGenerator<ImportedRow[]>, tick: () => void): Promise<void> {
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
      try {
        for await (const rows of batches) {
          for (const r of rows) {
            batch.push(r);
            tick();
            if (batch.length >= IMPORT_BATCH) await flush();
          }
        }
      } catch (err) {
        // A bad line: the rows before it are written first, so a duplicate among them is the error reported.
        if (err instanceof ImportError) await flush();
        throw err;
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

