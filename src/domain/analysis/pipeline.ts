/**
 * The analysis job of one order (`analyze_order`): runs the checks in order and records each outcome as an
 * `analysis_list` entry through the lifecycle service.
 *
 * - A check that already has its entry (an earlier attempt recorded it) is not run again.
 * - `unsupported` ends the analysis: the order moves to `Unsupported File`.
 * - After the last check, any `failed` entry moves the order to `Action Required`; otherwise it stays
 *   `In Progress`, waiting for a reviewer.
 * - A check that throws makes the job fail; the queue retries it with backoff, and when attempts run out
 *   `onFinalFailure` moves the order to `Failed`, the failing check's entry recorded as not passed.
 *
 * The checks are listed in checks.ts; the contract is analysis-check.ts.
 */
import type { OrderAnalysisLineT } from '../../contract/schemas.js';
import type { JobHandler } from '../../jobs/worker.js';
import type { Db } from '../../storage/database.js';
import type { ObjectStorage } from '../../storage/object-storage/index.js';
import { OrderNotFoundError, changeOrder, type Actor } from '../orders/order-lifecycle.service.js';
import { readOrder, type LockedOrder } from '../orders/order-lifecycle.repository.js';
import type { OrderInputT } from '../orders/order-input.schema.js';
import type { Clock } from '../time/clock.js';
import type { AnalysisCheck, AnalysisContext, AnalysisSubject, CheckOutcome } from './analysis-check.js';
import { fileTypeCheck } from './file-type.check.js';
import { layerCheck } from './layer.check.js';
import { metadataCheck } from './metadata.check.js';

export const ANALYSIS_ACTOR: Actor = { kind: 'system', component: 'analysis' };

export interface AnalysisDeps {
  db: Db;
  clock: Clock;
  storage: ObjectStorage;
  /** The checks, in order; `file_type` first. */
  checks?: readonly AnalysisCheck[];
}

/** The checks that need no configuration (the job runtime adds `ai_detection`: see checks.ts). */
export const DEFAULT_CHECKS: readonly AnalysisCheck[] = [fileTypeCheck, metadataCheck, layerCheck];

async function readStream(body: NodeJS.ReadableStream): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of body) chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as string));
  return Buffer.concat(chunks);
}

function contextFor(storage: ObjectStorage, subject: AnalysisSubject, signal: AbortSignal): AnalysisContext {
  let all: Promise<Buffer> | null = null;
  const heads = new Map<number, Promise<Buffer>>();
  const read = async (range?: { start: number; end: number }) => {
    const object = await storage.get(subject.assetKey, range);
    if (!object) throw new Error(`asset ${subject.assetKey} is missing from object storage`);
    return readStream(object.body);
  };
  return {
    subject,
    storage,
    signal,
    facts: new Map(),
    readAll: () => (all ??= read()),
    readHead: (bytes) => {
      if (all) return all.then((b) => b.subarray(0, bytes));
      let head = heads.get(bytes);
      if (!head) heads.set(bytes, (head = read({ start: 0, end: bytes - 1 })));
      return head;
    },
  };
}

function subjectOf(order: LockedOrder): AnalysisSubject {
  if (!order.asset_key) throw new Error(`order ${order.order_id} has no asset to analyze`);
  return {
    orderId: order.order_id,
    organizationId: order.organization_id,
    projectId: order.project_id,
    assetKey: order.asset_key,
    assetContentType: order.asset_content_type ?? 'application/octet-stream',
    assetSize: order.asset_size ?? 0,
  };
}

function analysisList(order: LockedOrder): OrderAnalysisLineT[] {
  return (JSON.parse(order.doc) as OrderInputT).analysis_list ?? [];
}

/** Appends (or replaces) the entry of a check. */
function putEntry(input: OrderInputT, type: string, passed: boolean): void {
  const list = (input.analysis_list ?? []).filter((l) => l.analysis_type !== type);
  list.push({ analysis_type: type, analysis_passed: passed });
  input.analysis_list = list;
}

async function record(deps: AnalysisDeps, orderId: string, check: AnalysisCheck, result: CheckOutcome): Promise<void> {
  if (result.outcome === 'not_run') return;
  if (result.outcome === 'unsupported') {
    await changeOrder(deps.db, deps.clock, orderId, ANALYSIS_ACTOR, {
      to: 'Unsupported File',
      reason: `${check.name}: ${result.reason}`,
      edit: (input) => putEntry(input, check.name, false),
    });
    return;
  }
  await changeOrder(deps.db, deps.clock, orderId, ANALYSIS_ACTOR, {
    onlyFrom: ['In Progress'],
    edit: (input) => {
      putEntry(input, check.name, result.outcome === 'passed');
      // The entry and what the check found are written in one move, so a retried job never adds them twice.
      input.analysis_failed_items = [...(input.analysis_failed_items ?? []), ...(result.failedItems ?? [])];
      input.annotations = [...(input.annotations ?? []), ...(result.annotations ?? [])];
      if (result.renditions) {
        input.asset_preview_key = result.renditions.previewKey;
        input.layers = result.renditions.layers;
      }
    },
  });
}

/** Runs the analysis of one order (idempotent: safe to run again after a crash). */
export async function analyzeOrder(deps: AnalysisDeps, orderId: string, signal: AbortSignal): Promise<void> {
  const checks = deps.checks ?? DEFAULT_CHECKS;
  const order = await readOrder(deps.db, orderId);
  if (!order || order.order_state !== 'In Progress') return; // deleted, or decided meanwhile
  const done = new Set(analysisList(order).map((l) => l.analysis_type));
  const context = contextFor(deps.storage, subjectOf(order), signal);
  for (const check of checks) {
    if (done.has(check.name)) continue;
    signal.throwIfAborted();
    const result = await check.run(context);
    await record(deps, orderId, check, result);
    if (result.outcome === 'unsupported') return;
  }
  const after = await readOrder(deps.db, orderId);
  if (after && after.order_state === 'In Progress' && analysisList(after).some((l) => !l.analysis_passed)) {
    const failed = analysisList(after).filter((l) => !l.analysis_passed).map((l) => l.analysis_type);
    await changeOrder(deps.db, deps.clock, orderId, ANALYSIS_ACTOR, { to: 'Action Required', onlyFrom: ['In Progress'], reason: `flagged by ${failed.join(', ')}` });
  }
}

/** The first check without an entry: the one that kept failing. */
async function failingCheck(deps: AnalysisDeps, orderId: string): Promise<string> {
  const order = await readOrder(deps.db, orderId);
  const done = new Set(order ? analysisList(order).map((l) => l.analysis_type) : []);
  return (deps.checks ?? DEFAULT_CHECKS).find((c) => !done.has(c.name))?.name ?? 'analysis';
}

/** The `analyze_order` job handler. */
export function analyzeOrderJob(deps: AnalysisDeps): JobHandler {
  const orderIdOf = (payload: Record<string, unknown>) => String(payload.order_id);
  return {
    run: (payload, { signal }) => analyzeOrder(deps, orderIdOf(payload), signal),
    async onFinalFailure(payload, error) {
      const orderId = orderIdOf(payload);
      const check = await failingCheck(deps, orderId);
      try {
        await changeOrder(deps.db, deps.clock, orderId, ANALYSIS_ACTOR, {
          to: 'Failed',
          onlyFrom: ['In Progress'],
          reason: `${check} failed: ${error}`,
          edit: (input) => putEntry(input, check, false),
        });
      } catch (err) {
        if (err instanceof OrderNotFoundError) return;
        throw err;
      }
    },
  };
}
