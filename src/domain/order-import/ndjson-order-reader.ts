/**
 * Reads an NDJSON stream of orders (one OrderInput per line) and turns each line into an order row, or
 * stops at the first bad line with an ImportError naming the line and the field.
 *
 * The bytes are split at `\n` (a `\r` before it is dropped) and each line is decoded on its own: a UTF-8
 * sequence never contains the byte 0x0A, so this is exact, and it skips readline's decoding of whole
 * chunks and its regular-expression split. Rows come in batches, one per chunk read (a 256 KB chunk holds
 * a couple of hundred orders), so the per-row cost of async iteration is paid once per chunk.
 * Never holds more than the current chunk and the partial line carried over from the previous one.
 */
import type { Readable } from 'node:stream';
import { checkOrderRules, toOrderRow, type OrderRow } from '../orders/order-document.js';
import { OrderInput, type OrderInputT } from '../orders/order-input.schema.js';
import { compileInputValidator, formatProblem, type InputProblem } from '../schema-errors.js';

/** A problem with the import, already phrased for the operator: `line 12: order_state: must be one of ...`. */
export class ImportError extends Error {
  override name = 'ImportError';
  constructor(
    message: string,
    readonly line: number | null = null,
  ) {
    super(line === null ? message : `line ${line}: ${message}`);
  }
}

export interface ImportedRow {
  /** 1-based line number in the input. */
  line: number;
  row: OrderRow;
}

const validator = compileInputValidator<OrderInputT>(OrderInput);
const NEWLINE = 0x0a;
const CARRIAGE_RETURN = 0x0d;

/** Validates one parsed line; returns the problem or null. */
function problemOf(value: unknown, projectIds: ReadonlySet<string>, organizationId: string): InputProblem | null {
  const schemaProblem = validator.check(value);
  if (schemaProblem) return schemaProblem;
  const order = value as OrderInputT;
  const rule = checkOrderRules(order, organizationId)[0];
  if (rule) return rule;
  if (order.project_id && !projectIds.has(order.project_id.toLowerCase())) {
    return { path: 'project_id', message: `no project with this id in organization ${organizationId}` };
  }
  return null;
}

/**
 * Yields the rows of input in order, in batches (one per chunk read; never an empty batch); at a bad line,
 * the rows before it, then the ImportError. Blank lines are skipped (a trailing newline is not an order). onBytes is told the size of each chunk read
 * (progress against the file size). An error of the stream itself is an ImportError without a line.
 * @example for await (const batch of readOrderBatches(fs.createReadStream(file), orgId, ids)) for (const { line, row } of batch) ...
 */
export async function* readOrderBatches(
  input: Readable,
  organizationId: string,
  projectIds: ReadonlySet<string>,
  onBytes?: (bytes: number) => void,
): AsyncGenerator<ImportedRow[]> {
  let line = 0;
  const rowOf = (bytes: Buffer, start: number, end: number): ImportedRow | null => {
    line++;
    if (end > start && bytes[end - 1] === CARRIAGE_RETURN) end--;
    const text = bytes.toString('utf8', start, end);
    if (text.length === 0 || (text.charCodeAt(0) !== 0x7b && text.trim() === '')) return null;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (err) {
      throw new ImportError(`not valid JSON: ${(err as Error).message}`, line);
    }
    const problem = problemOf(value, projectIds, organizationId);
    if (problem) throw new ImportError(problem.path ? formatProblem(problem) : `order ${problem.message}`, line);
    return { line, row: toOrderRow(organizationId, value as OrderInputT) };
  };
  // The start of a line that the previous chunk did not finish.
  let carried: Buffer | null = null;
  const chunks = input[Symbol.asyncIterator]();
  for (;;) {
    let next: IteratorResult<Buffer | string>;
    try {
      next = await chunks.next();
    } catch (err) {
      throw new ImportError(`cannot read the input: ${(err as Error).message}`);
    }
    if (next.done) break;
    const chunk = typeof next.value === 'string' ? Buffer.from(next.value, 'utf8') : next.value;
    onBytes?.(chunk.length);
    const batch: ImportedRow[] = [];
    let start = 0;
    let end = chunk.indexOf(NEWLINE);
    if (end === -1) {
      carried = carried === null ? chunk : Buffer.concat([carried, chunk]);
      continue;
    }
    try {
      if (carried !== null) {
        const first = Buffer.concat([carried, chunk.subarray(0, end)]);
        carried = null;
        const r = rowOf(first, 0, first.length);
        if (r) batch.push(r);
        start = end + 1;
        end = chunk.indexOf(NEWLINE, start);
      }
      while (end !== -1) {
        const r = rowOf(chunk, start, end);
        if (r) batch.push(r);
        start = end + 1;
        end = chunk.indexOf(NEWLINE, start);
      }
    } catch (err) {
      // The rows before the bad line go first: a problem among them (a duplicate id) comes first in the file.
      if (batch.length > 0) yield batch;
      throw err;
    }
    if (start < chunk.length) carried = chunk.subarray(start);
    if (batch.length > 0) yield batch;
  }
  if (carried !== null) {
    const r = rowOf(carried, 0, carried.length);
    if (r) yield [r];
  }
}
