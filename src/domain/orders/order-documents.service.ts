/**
 * Keeps the stored documents (`doc`, `preview_doc`: order-document.ts) true to the renderer. Every write of
 * an order re-renders them in the same transaction; these are the safety nets for what that cannot cover:
 * a renderer that changed since a document was written (a release), or a write that bypassed it (a bug, a
 * hand-made UPDATE).
 * - checkDocuments / sampleDocumentDrift: the stored text against a fresh rendering, for a test, the
 *   `/metrics` gauge (a sample per scrape) and the operator.
 * - rerenderOrders: `certdesk orders rerender [--all | ORDER_ID]`, in short batches of their own, each a
 *   transaction that locks only its rows, so the table stays online (docs/orders.md, "Stored documents").
 */
import type { Db, Executor } from '../../storage/database.js';
import { toOrderRow } from './order-document.js';
import type { OrderInputT } from './order-input.schema.js';
import { readDocumentBatch, sampleDocuments, writeDocuments, type StoredDocuments } from './order-documents.repository.js';

/** Orders per repair batch (and transaction): short row locks, and ~1.5 MB of documents at a time. */
export const RERENDER_BATCH = 500;

/** The documents the renderer makes of a stored order today: from its own document and its row's columns. */
export function renderStored(row: StoredDocuments): { doc: string; preview_doc: string } {
  const input = { ...(JSON.parse(row.doc) as OrderInputT), project_id: row.project_id, asset_preview_key: row.asset_preview_key, layers: row.layers, order_state: row.order_state };
  const rendered = toOrderRow(row.organization_id, input);
  return { doc: rendered.doc, preview_doc: rendered.preview_doc };
}

export interface DocumentDrift {
  orderId: string;
  /** Which stored document differs from the renderer's: `doc`, `preview_doc`, or `unrenderable` (the renderer throws). */
  documents: Array<'doc' | 'preview_doc' | 'unrenderable'>;
}

/** The orders of `rows` whose stored documents differ from what the renderer makes of them. */
export function driftOf(rows: readonly StoredDocuments[]): DocumentDrift[] {
  const drift: DocumentDrift[] = [];
  for (const row of rows) {
    let rendered: { doc: string; preview_doc: string };
    try {
      rendered = renderStored(row);
    } catch {
      drift.push({ orderId: row.order_id, documents: ['unrenderable'] });
      continue;
    }
    const documents: DocumentDrift['documents'] = [];
    if (rendered.doc !== row.doc) documents.push('doc');
    if (rendered.preview_doc !== row.preview_doc) documents.push('preview_doc');
    if (documents.length > 0) drift.push({ orderId: row.order_id, documents });
  }
  return drift;
}

/** Checks the given orders (all of them: tests), or every order when `orderIds` is null. */
export async function checkDocuments(db: Executor, orderIds: readonly string[] | null): Promise<DocumentDrift[]> {
  if (orderIds !== null) {
    const rows = (await Promise.all(orderIds.map((id) => readDocumentBatch(db, null, 1, false, id)))).flat();
    return driftOf(rows);
  }
  const drift: DocumentDrift[] = [];
  for (let after: string | null = null; ; ) {
    const rows = await readDocumentBatch(db, after, RERENDER_BATCH, false);
    drift.push(...driftOf(rows));
    if (rows.length < RERENDER_BATCH) return drift;
    after = rows[rows.length - 1]!.order_id;
  }
}

export interface DriftSample {
  sampled: number;
  drifted: number;
}

/** A random sample of about `size` orders checked against the renderer (the `/metrics` gauges read this). */
export async function sampleDocumentDrift(db: Executor, size: number): Promise<DriftSample> {
  const rows = await sampleDocuments(db, size);
  return { sampled: rows.length, drifted: driftOf(rows).length };
}

export interface RerenderResult {
  /** Orders read and re-rendered. */
  checked: number;
  /** Orders whose stored documents were rewritten (the others already matched). */
  rewritten: number;
}

/**
 * Re-renders the stored documents of one order, or of every order (in order_id order, RERENDER_BATCH per
 * transaction), writing only those that differ. An order the renderer refuses stops the repair with its
 * error: a document is never replaced by a guess.
 * @param onBatch progress, after each committed batch.
 */
export async function rerenderOrders(db: Db, target: { orderId: string } | { all: true }, onBatch?: (progress: RerenderResult) => void): Promise<RerenderResult> {
  const total: RerenderResult = { checked: 0, rewritten: 0 };
  const only = 'orderId' in target ? target.orderId : null;
  for (let after: string | null = null; ; ) {
    const batch = await db.transaction().execute(async (trx) => {
      const rows = await readDocumentBatch(trx, after, only === null ? RERENDER_BATCH : 1, true, only);
      const changed = rows.flatMap((row) => {
        const rendered = renderStored(row);
        return rendered.doc === row.doc && rendered.preview_doc === row.preview_doc ? [] : [{ order_id: row.order_id, ...rendered }];
      });
      await writeDocuments(trx, changed);
      return { rows, rewritten: changed.length };
    });
    total.checked += batch.rows.length;
    total.rewritten += batch.rewritten;
    onBatch?.({ ...total });
    if (only !== null || batch.rows.length < RERENDER_BATCH) return total;
    after = batch.rows[batch.rows.length - 1]!.order_id;
  }
}
