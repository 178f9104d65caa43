/**
 * The analysis job of one order (`analyze_order`): runs the checks in order and records each outcome as an
 * `analysis_list` entry through the lifecycle service.
 *
 * - A check that already has its entry (an earlier attempt recorded it) is not run again.
 * - `unsupported` ends the analysis: the order moves to `Unsupported File`.
 * - After the last check, any `failed` entry moves the order to `Action Required`; otherwise it stays
 *   `In Progress`, waiting for a reviewer.
 * - A check that throws makes the job fail: a `PermanentJobError` (bad bytes) at once, anything else after
 *   the queue's retries with backoff. Then `onFinalFailure` moves the order to `Failed` in the transaction
 *   that fails the job, the failing check's entry recorded as not passed and the cause's kind in
 *   `order_analysis_failures` (an operator may re-analyse after a transient one).
 * - Overlapping runs of one job (a lease lost, another worker took over) write each check's outcome once:
 *   under the order's row lock, an outcome whose check already has its entry is dropped, so failed items
 *   and annotations are never added twice.
 * - The outcomes are written together, in one transaction (one re-rendering of the documents) once the
 *   checks ran, with the move to `Action Required` when one failed; when a check throws, the outcomes of
 *   the checks before it are written first, so the retry does not run them again.
 *
 * The checks are listed in checks.ts; the contract is analysis-check.ts.
 */
import type { OrderAnalysisLineT } from '../../contract/schemas.js';
import type { JobHandler } from '../background/job-handler.js';
import type { Db, Executor } from '../../storage/database.js';
import { recordAnalysisFailure } from './analysis-failure.repository.js';
import type { ObjectStorage } from '../../storage/object-storage/index.js';
import { IllegalTransitionError } from '../orders/lifecycle.js';
import { OrderNotFoundError, changeOrder, changeOrderIn, type Actor } from '../orders/order-lifecycle.service.js';
import { lockOrder, readOrder, type LockedOrder } from '../orders/order-lifecycle.repository.js';
import type { OrderInputT } from '../orders/order-input.schema.js';
import type { Clock } from '../time/clock.js';
import type { AnalysisCheck, AnalysisContext, AnalysisSubject, CheckOutcome } from './analysis-check.js';
import { inProcessDecoder, type ImageDecoder } from './decoding/image-decoder.js';
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
  /** Image decoding; default: in this thread with the default limits (production passes the DecoderPool). */
  decoder?: ImageDecoder;
}

/** The checks that need no configuration (the job runtime adds `ai_detection`: see checks.ts). */
export const DEFAULT_CHECKS: readonly AnalysisCheck[] = [fileTypeCheck, metadataCheck, layerCheck];

/**
 * Assets up to this size are read whole at the first read, instead of a ranged read of their head first.
 * Larger ones are first judged on their head (file-type.check.ts): a file its headers already refuse is
 * never held in memory whole.
 */
const READ_WHOLE_BYTES = 4 * 1024 * 1024;

/**
 * Reads an object whole. With its size known the bytes go straight into one buffer of that size: collecting
 * the chunks and concatenating them held every byte twice until the chunks were collected. An object
 * longer than announced is still read whole, by the slower way.
 */
export async function readStream(body: NodeJS.ReadableStream, expectedBytes = 0): Promise<Buffer> {
  const chunks: Buffer[] = [];
  const whole = expectedBytes > 0 ? Buffer.allocUnsafe(expectedBytes) : null;
  let filled = 0;
  for await (const data of body) {
    const chunk = Buffer.isBuffer(data) ? data : Buffer.from(data as string);
    if (whole && chunks.length === 0 && filled + chunk.length <= whole.length) {
      chunk.copy(whole, filled);
    } else {
      if (whole && chunks.length === 0) chunks.push(whole.subarray(0, filled)); // longer than announced
      chunks.push(chunk);
    }
    filled += chunk.length;
  }
  if (chunks.length > 0) return Buffer.concat(chunks);
  return whole ? whole.subarray(0, filled) : Buffer.alloc(0);
}

function contextFor(storage: ObjectStorage, decoder: ImageDecoder, subject: AnalysisSubject, signal: AbortSignal): AnalysisContext {
  let all: Promise<Buffer> | null = null;
  const heads = new Map<number, Promise<Buffer>>();
  const read = async (range?: { start: number; end: number }) => {
    const object = await storage.get(subject.assetKey, range);
    if (!object) throw new Error(`asset ${subject.assetKey} is missing from object storage`);
    return readStream(object.body, object.size); // the size storage reports (the range's, clamped to the object)
  };
  return {
    subject,
    storage,
    decoder,
    signal,
    facts: new Map(),
    readAll: () => (all ??= read()),
    readHead: (bytes) => {
      // Every check after file_type reads the whole asset: unless it is large, read it once, whole.
      if (!all && subject.assetSize > 0 && subject.assetSize <= READ_WHOLE_BYTES) all = read();
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

/** An outcome a check returned in this attempt, not yet written. */
interface Outcome {
  check: AnalysisCheck;
  result: Exclude<CheckOutcome, { outcome: 'not_run' | 'unsupported' }>;
}

/** Adds a check's entry and what it found to the order (one move, so a retried job never adds them twice). */
function applyOutcome(input: OrderInputT, { check, result }: Outcome): void {
  putEntry(input, check.name, result.outcome === 'passed');
  input.analysis_failed_items = [...(input.analysis_failed_items ?? []), ...(result.failedItems ?? [])];
  input.annotations = [...(input.annotations ?? []), ...(result.annotations ?? [])];
  if (result.renditions) {
    input.asset_preview_key = result.renditions.previewKey;
    input.layers = result.renditions.layers;
  }
}

/**
 * Applies the outcomes whose check has no entry yet. The order is locked: an overlapping run of the same
 * job that wrote a check's outcome first wins, and this run's copy of it is dropped.
 */
function applyNewOutcomes(input: OrderInputT, outcomes: readonly Outcome[]): void {
  const recorded = new Set((input.analysis_list ?? []).map((l) => l.analysis_type));
  for (const o of outcomes) if (!recorded.has(o.check.name)) applyOutcome(input, o);
}

const failedTypes = (list: readonly OrderAnalysisLineT[]) => list.filter((l) => !l.analysis_passed).map((l) => l.analysis_type);

/**
 * Writes the outcomes of this attempt in one transaction and, when `settle`, moves the order to
 * `Action Required` if any entry (earlier attempts' included) did not pass.
 */
async function writeOutcomes(deps: AnalysisDeps, orderId: string, outcomes: readonly Outcome[], settle: boolean): Promise<void> {
  await deps.db.transaction().execute(async (trx) => {
    // An overlapping run (its lease lost) whose outcomes another run already wrote adds nothing, so it
    // records no second `analysis_completed`; with no outcomes at all (an earlier attempt wrote every entry
    // as progress, then stopped) this run is the one that completes the analysis.
    const locked = await lockOrder(trx, orderId);
    const recorded = new Set(locked ? analysisList(locked).map((l) => l.analysis_type) : []);
    const addsSomething = outcomes.length === 0 || outcomes.some((o) => !recorded.has(o.check.name));
    const written = await changeOrderIn(trx, deps.clock, orderId, ANALYSIS_ACTOR, {
      onlyFrom: ['In Progress'],
      edit: (input) => applyNewOutcomes(input, outcomes),
      // The history records the analysis once, when it has finished (the writes of an interrupted attempt are progress).
      ...(settle && addsSomething ? { event: 'analysis_completed' as const } : {}),
    });
    const failed = settle ? failedTypes(written.order.analysis_list ?? []) : [];
    if (failed.length > 0) {
      await changeOrderIn(trx, deps.clock, orderId, ANALYSIS_ACTOR, { to: 'Action Required', onlyFrom: ['In Progress'], reason: `flagged by ${failed.join(', ')}` });
    }
  });
}

let defaultDecoder: ImageDecoder | undefined;

/** Runs the analysis of one order (idempotent: safe to run again after a crash). */
export async function analyzeOrder(deps: AnalysisDeps, orderId: string, signal: AbortSignal): Promise<void> {
  const checks = deps.checks ?? DEFAULT_CHECKS;
  const order = await readOrder(deps.db, orderId);
  if (!order || order.order_state !== 'In Progress') return; // deleted, or decided meanwhile
  const recorded = analysisList(order);
  const done = new Set(recorded.map((l) => l.analysis_type));
  const context = contextFor(deps.storage, deps.decoder ?? (defaultDecoder ??= inProcessDecoder()), subjectOf(order), signal);
  const outcomes: Outcome[] = [];
  for (const check of checks) {
    if (done.has(check.name)) continue;
    let result: CheckOutcome;
    try {
      signal.throwIfAborted();
      result = await check.run(context);
    } catch (err) {
      // What the checks before this one found is kept: the retry starts at this check.
      if (outcomes.length > 0) await writeOutcomes(deps, orderId, outcomes, false).catch(() => undefined);
      throw err;
    }
    if (result.outcome === 'not_run') continue;
    if (result.outcome === 'unsupported') {
      const reason = `${check.name}: ${result.reason}`;
      await changeOrder(deps.db, deps.clock, orderId, ANALYSIS_ACTOR, {
        to: 'Unsupported File',
        reason,
        ...(outcomes.length > 0 ? { onlyFrom: ['In Progress'] as const } : {}),
        edit: (input) => {
          applyNewOutcomes(input, outcomes);
          putEntry(input, check.name, false);
        },
      });
      return;
    }
    outcomes.push({ check, result });
  }
  if (outcomes.length > 0) await writeOutcomes(deps, orderId, outcomes, true);
  else if (failedTypes(recorded).length > 0) {
    // Every check had its entry already (an earlier attempt wrote them, then stopped): settle now.
    await writeOutcomes(deps, orderId, [], true);
  }
}

/** The first check without an entry: the one that kept failing. */
async function failingCheck(deps: AnalysisDeps, db: Executor, orderId: string): Promise<string> {
  const order = await readOrder(db, orderId);
  const done = new Set(order ? analysisList(order).map((l) => l.analysis_type) : []);
  return (deps.checks ?? DEFAULT_CHECKS).find((c) => !done.has(c.name))?.name ?? 'analysis';
}

/** The `analyze_order` job handler. */
export function analyzeOrderJob(deps: AnalysisDeps): JobHandler {
  const orderIdOf = (payload: Record<string, unknown>) => String(payload.order_id);
  return {
    run: (payload, { signal }) => analyzeOrder(deps, orderIdOf(payload), signal),
    // In the transaction that fails the job: if this throws, neither the job's failure nor the order's
    // move commits, and the job is claimed again once its lease runs out.
    async onFinalFailure(payload, error, { trx, failureKind, job }) {
      const orderId = orderIdOf(payload);
      const check = await failingCheck(deps, trx, orderId);
      try {
        await changeOrderIn(trx, deps.clock, orderId, ANALYSIS_ACTOR, {
          to: 'Failed',
          onlyFrom: ['In Progress'],
          reason: `${check} failed: ${error}`,
          edit: (input) => putEntry(input, check, false),
        });
      } catch (err) {
        if (err instanceof OrderNotFoundError) return;
        if (err instanceof IllegalTransitionError) return; // decided meanwhile (a reviewer, or a settled analysis)
        throw err;
      }
      await recordAnalysisFailure(trx, { order_id: orderId, failure_kind: failureKind, job_id: job.id, failed_check: check, error });
    },
  };
}
