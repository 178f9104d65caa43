/**
 * Reads an NDJSON stream of orders (one OrderInput per line) line by line and turns each line into an
 * order row, or stops at the first bad line with an ImportError naming the line and the field.
 * Never holds more than the current line and readline's small buffer.
 */
import readline from 'node:readline';
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
 * Yields the rows of input, in order. Blank lines are skipped (a trailing newline is not an order).
 * onBytes is told the size of each chunk read (progress against the file size).
 * @example for await (const { line, row } of readOrderLines(fs.createReadStream(file), orgId, ids)) ...
 */
export async function* readOrderLines(
  input: Readable,
  organizationId: string,
  projectIds: ReadonlySet<string>,
  onBytes?: (bytes: number) => void,
): AsyncGenerator<ImportedRow> {
  const lines = readline.createInterface({ input, crlfDelay: Infinity });
  // Attached together with readline: a 'data' listener added earlier would start the flow before anyone reads.
  if (onBytes) input.on('data', (chunk: Buffer | string) => onBytes(typeof chunk === 'string' ? Buffer.byteLength(chunk) : chunk.length));
  let line = 0;
  try {
    for await (const text of lines) {
      line++;
      if (text.trim() === '') continue;
      let value: unknown;
      try {
        value = JSON.parse(text);
      } catch (err) {
        throw new ImportError(`not valid JSON: ${(err as Error).message}`, line);
      }
      const problem = problemOf(value, projectIds, organizationId);
      if (problem) throw new ImportError(problem.path ? formatProblem(problem) : `order ${problem.message}`, line);
      yield { line, row: toOrderRow(organizationId, value as OrderInputT) };
    }
  } finally {
    lines.close();
  }
}
