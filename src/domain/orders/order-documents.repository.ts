/**
 * The stored documents' own reads and writes, for checking them against the renderer and repairing them
 * (order-documents.service.ts): batches in order_id order, a cheap random sample, and one UPDATE per batch.
 */
import { sql } from 'kysely';
import type { HumanOrderStateValue } from '../../contract/schemas.js';
import { arrayLiteral } from '../../storage/array-literal.js';
import type { Executor } from '../../storage/database.js';
import type { StoredLayer } from '../../storage/schema.js';

/** What the documents of an order are rendered from, and what is stored. */
export interface StoredDocuments {
  order_id: string;
  organization_id: string;
  project_id: string | null;
  order_state: HumanOrderStateValue;
  asset_preview_key: string | null;
  layers: StoredLayer[];
  doc: string;
  preview_doc: string;
}

const COLUMNS = sql`order_id, organization_id::text AS organization_id, project_id::text AS project_id, order_state,
  asset_preview_key, layers, doc, preview_doc`;

/**
 * Up to `limit` orders after `afterOrderId` in order_id order (all when null), optionally one order only,
 * locked until the transaction ends when `lock` (a repair: a concurrent change waits, then re-renders from
 * what the repair wrote, or the repair waits for it).
 */
export async function readDocumentBatch(db: Executor, afterOrderId: string | null, limit: number, lock: boolean, onlyOrderId: string | null = null): Promise<StoredDocuments[]> {
  const where = onlyOrderId !== null ? sql`order_id = ${onlyOrderId}::text` : afterOrderId === null ? sql`TRUE` : sql`order_id > ${afterOrderId}::text`;
  const result = await sql<StoredDocuments>`
    SELECT ${COLUMNS} FROM orders WHERE ${where} ORDER BY order_id LIMIT ${limit} ${lock ? sql`FOR UPDATE` : sql``}`.execute(db);
  return result.rows;
}

/**
 * A random sample of about `size` orders: whole table pages picked at random (TABLESAMPLE SYSTEM), so the
 * cost follows the sample, not the table. Small tables are read whole.
 */
export async function sampleDocuments(db: Executor, size: number): Promise<StoredDocuments[]> {
  const estimate = await sql<{ n: number }>`SELECT greatest(reltuples, 0)::bigint AS n FROM pg_class WHERE oid = 'orders'::regclass`.execute(db);
  const rows = estimate.rows[0]?.n ?? 0;
  // Four times the share wanted: pages hold unequal numbers of rows, and the LIMIT trims the excess.
  const percent = rows <= size * 4 ? 100 : Math.min(100, (400 * size) / rows);
  const result = await sql<StoredDocuments>`
    SELECT ${COLUMNS} FROM orders TABLESAMPLE SYSTEM (${percent}::float8) LIMIT ${size}`.execute(db);
  return result.rows;
}

/** Writes re-rendered documents, one statement for the batch. */
export async function writeDocuments(db: Executor, rows: ReadonlyArray<{ order_id: string; doc: string; preview_doc: string }>): Promise<number> {
  if (rows.length === 0) return 0;
  const result = await sql`
    UPDATE orders o SET doc = r.doc::json, preview_doc = r.preview_doc::json, updated_at = now()
    FROM unnest(${arrayLiteral(rows.map((r) => r.order_id))}::text[], ${arrayLiteral(rows.map((r) => r.doc))}::text[],
                ${arrayLiteral(rows.map((r) => r.preview_doc))}::text[]) AS r(order_id, doc, preview_doc)
    WHERE o.order_id = r.order_id`.execute(db);
  return Number(result.numAffectedRows ?? 0);
}
