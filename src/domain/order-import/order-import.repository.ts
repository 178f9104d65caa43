/**
 * The SQL of the NDJSON order import: the organization's project ids, the COPY statement (server), the
 * multi-row INSERT (embedded), and the lookup that explains a duplicate order id.
 */
import type { CopyColumnType } from '../../storage/copy-binary.js';
import type { Executor } from '../../storage/database.js';
import type { OrderRow } from '../orders/order-document.js';

/** Columns of `orders` the import writes, in COPY order. */
export const IMPORT_COLUMNS = [
  'order_id',
  'organization_id',
  'project_id',
  'owner_key',
  'order_state',
  'creation_time',
  'asset_preview_key',
  'layers',
  'doc',
  'preview_doc',
] as const;

/** The PostgreSQL type of each of IMPORT_COLUMNS, for binary COPY (storage/copy-binary.ts). */
export const IMPORT_COLUMN_TYPES: readonly CopyColumnType[] = ['text', 'uuid', 'uuid', 'text', 'text', 'timestamptz', 'text', 'jsonb', 'json', 'json'];

/** COPY into orders directly: the primary key catches duplicates (in the file or in the table) row by row. */
export const COPY_ORDERS_SQL = `COPY orders (${IMPORT_COLUMNS.join(', ')}) FROM STDIN`;

/** The row's values in IMPORT_COLUMNS order. */
export function importValues(row: OrderRow): Array<string | null> {
  return [row.order_id, row.organization_id, row.project_id, row.owner_key, row.order_state, row.creation_time, row.asset_preview_key, row.layers, row.doc, row.preview_doc];
}

export async function projectIdsOf(db: Executor, organizationId: string): Promise<Set<string>> {
  const rows = await db.selectFrom('projects').select('id').where('organization_id', '=', organizationId).execute();
  return new Set(rows.map((r) => r.id.toLowerCase()));
}

/** Plain INSERT (no upsert): an existing order id fails the statement, and with it the import. */
export async function insertOrderBatch(db: Executor, rows: OrderRow[]): Promise<void> {
  if (rows.length === 0) return;
  await db
    .insertInto('orders')
    .values(rows.map((r) => ({ ...r })))
    .execute();
}

/** The organization an existing order belongs to, or undefined when there is no such order. */
export async function orderOrganization(db: Executor, orderId: string): Promise<string | undefined> {
  return (await db.selectFrom('orders').select('organization_id').where('order_id', '=', orderId).executeTakeFirst())?.organization_id;
}
