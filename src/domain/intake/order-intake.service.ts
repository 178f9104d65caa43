/**
 * Creating an order from an upload (POST /v1/orders), and the customer's response to `Action Required`.
 *
 * Nothing is half-written: the upload's bytes are checked in storage (present, exactly the announced size)
 * before anything is written, then one transaction claims the upload, inserts the order (counters follow
 * by trigger), records the creation in `order_events` and queues the analysis job. A failure anywhere
 * leaves no order; the upload stays unused and its bytes are deleted by the cleanup job once it expires.
 */
import { randomUUID } from 'node:crypto';
import type { OrderT } from '../../contract/schemas.js';
import { ANALYZE_ORDER_JOB, analysisJobKey, maxAttemptsOf } from '../background/job-kinds.js';
import type { Readable } from 'node:stream';
import type { Db, Executor } from '../../storage/database.js';
import type { ObjectStorage } from '../../storage/object-storage/index.js';
import { ApiError, NotFoundError } from '../errors.js';
import { findVisibleOrder } from '../orders/find-visible-order.js';
import { INITIAL_STATE } from '../orders/lifecycle.js';
import { toOrderRow } from '../orders/order-document.js';
import { changeOrderIn, creationEvent, type Actor } from '../orders/order-lifecycle.service.js';
import { insertOrderClaimingUpload, type NewOrderWrite } from './order-creation.repository.js';
import type { OrdersContext } from '../orders/orders-context.js';
import type { OrderPageRow } from '../orders/order-listing.repository.js';
import { projectMap, toListedOrder } from '../orders/order-listing.service.js';
import { toOrderObject } from '../orders/order-response.js';
import { listVisibleProjects, type VisibleProject } from '../orders/visible-projects.repository.js';
import type { Principal } from '../principal.js';
import type { Clock } from '../time/clock.js';
import { claimUpload, findUserUpload, type UploadRow } from './upload.repository.js';
import { discardUpload, receiveUpload, type ReceivedUpload } from './upload.service.js';
import type { UploadLimits } from './upload-limits.js';

/** The job that analyzes a new order (see domain/analysis). */
export { ANALYZE_ORDER_JOB };

export interface NewOrderRequest {
  upload_id: string;
  project_id: string | null;
  order_title: string;
  asset_name?: string;
  asset_last_modified_timestamp?: string;
  ordered_by?: string | null;
  tags?: string[];
}

export interface OrderResponseRequest {
  message: string;
  upload_ids?: string[];
}

export interface IntakeDeps {
  db: Db;
  clock: Clock;
  storage: ObjectStorage;
  orders: OrdersContext;
  /** Called after an analysis job was queued (wakes this process's worker). */
  onJobQueued?: () => void;
}

export type UploadProblem = 'unknown' | 'empty' | 'used' | 'expired' | 'size_mismatch';

/**
 * The one table of what each upload problem says: the API's pydantic-style 422 message and the web page's
 * sentence (both in every catalogue). A new problem is one entry here, checked by the compiler.
 */
export const UPLOAD_PROBLEM_MESSAGES: Readonly<Record<UploadProblem, { api: `validation.upload_${UploadProblem}`; web: `web.upload.problem_${UploadProblem}` }>> = {
  unknown: { api: 'validation.upload_unknown', web: 'web.upload.problem_unknown' },
  empty: { api: 'validation.upload_empty', web: 'web.upload.problem_empty' },
  used: { api: 'validation.upload_used', web: 'web.upload.problem_used' },
  expired: { api: 'validation.upload_expired', web: 'web.upload.problem_expired' },
  size_mismatch: { api: 'validation.upload_size_mismatch', web: 'web.upload.problem_size_mismatch' },
};

/** An upload id that cannot be used (the route answers 422 on `["body", "upload_id"]`). */
export class UploadRejectedError extends Error {
  override name = 'UploadRejectedError';
  constructor(
    readonly problem: UploadProblem,
    readonly uploadId: string,
    /** Position in `upload_ids` of a response, when the upload came from that list. */
    readonly index: number | null = null,
  ) {
    super(`upload ${uploadId}: ${problem}`);
  }
}

/** A project role that may not create orders (viewer): 403 `{"detail"}`. */
export class ProjectRoleForbiddenError extends ApiError {
  override name = 'ProjectRoleForbiddenError';
  constructor(role: string) {
    super(403, 'errors.project_role_forbidden', { vars: { role } });
  }
}

const WRITING_ROLES = new Set(['admin', 'editor']);

/** The project an order goes to, checked against the caller's view and role (docs/intake.md). */
async function checkProjectAccess(db: Db, principal: Principal, projectId: string | null): Promise<VisibleProject | null> {
  if (projectId === null) return null; // a personal order: anyone may create their own
  const wanted = projectId.toLowerCase();
  const project = (await listVisibleProjects(db, principal)).find((p) => p.id === wanted);
  if (!project) throw new NotFoundError('errors.project_not_found');
  if (!principal.isAdmin && !WRITING_ROLES.has(project.userRole)) throw new ProjectRoleForbiddenError(project.userRole);
  return project;
}

/** Checks that an upload can be consumed now: it is the caller's, unused, unexpired, and all its bytes arrived. */
async function usableUpload(deps: IntakeDeps, principal: Principal, uploadId: string, index: number | null = null): Promise<UploadRow> {
  const normalized = uploadId.toLowerCase();
  const upload = /^[0-9a-f-]{36}$/.test(normalized) ? await findUserUpload(deps.db, principal.organizationId, principal.userId, normalized) : undefined;
  if (!upload) throw new UploadRejectedError('unknown', uploadId, index);
  if (upload.used_at) throw new UploadRejectedError('used', uploadId, index);
  if (upload.expires_at.getTime() <= deps.clock.now().getTime()) throw new UploadRejectedError('expired', uploadId, index);
  const head = await deps.storage.head(upload.object_key);
  if (!head) throw new UploadRejectedError('empty', uploadId, index);
  if (head.size !== upload.size) throw new UploadRejectedError('size_mismatch', uploadId, index);
  return upload;
}

function actorOf(principal: Principal): Actor {
  return { kind: 'user', userId: principal.userId, email: principal.email, clientId: principal.clientId };
}

/** Why a claim failed that the checks before it passed: another request won, or the upload just expired. */
async function claimProblem(deps: IntakeDeps, principal: Principal, upload: UploadRow): Promise<UploadProblem> {
  const now = await findUserUpload(deps.db, principal.organizationId, principal.userId, upload.upload_id);
  return now?.used_at ? 'used' : 'expired';
}

/** What a caller adds to the creation of an order. */
export interface CreationHooks {
  /**
   * Runs inside the transaction that creates the order, after the insert, with the order as answered:
   * the caller's own record of the outcome (the Idempotency-Key's stored response) commits with the order
   * or not at all.
   */
  inTransaction?: (trx: Executor, order: OrderT) => Promise<void>;
}

/** A file sent with the request (multipart), not read yet. */
export interface IncomingFile {
  fileName: string;
  contentType: string;
  /** The stream of bytes, handed out once, when every check passed. */
  take: () => Readable;
  maxBytes: number;
  truncated: () => boolean;
}

/**
 * Creates an order from an upload: state `In Progress`, the caller as its user, analysis queued.
 * @throws NotFoundError (project outside the caller's view), ProjectRoleForbiddenError, UploadRejectedError
 */
export async function createOrderFromUpload(deps: IntakeDeps, principal: Principal, request: NewOrderRequest, hooks: CreationHooks = {}): Promise<OrderT> {
  const project = await checkProjectAccess(deps.db, principal, request.project_id);
  const upload = await usableUpload(deps, principal, request.upload_id);
  return insertOrder(deps, principal, project, upload, request, hooks);
}

/**
 * Creates an order from a file sent with the request (multipart). Every check that needs no bytes runs
 * first (project and role, the caller's upload limits), so a refused request stores nothing; then the
 * bytes are streamed to storage as a new upload of the caller, `beforeCreate` runs (the route checks the
 * rest of the form), and the order is created from that upload. If anything fails after the bytes were
 * stored, they are deleted again (bytes, then row).
 * @returns the order and the received upload (its size and SHA-256).
 */
export async function createOrderFromFile(
  deps: IntakeDeps & { uploadTtlSeconds: number; limits?: UploadLimits },
  principal: Principal,
  request: Omit<NewOrderRequest, 'upload_id'>,
  file: IncomingFile,
  hooks: CreationHooks & { beforeCreate?: (received: ReceivedUpload) => Promise<void> } = {},
): Promise<{ order: OrderT; received: ReceivedUpload }> {
  const project = await checkProjectAccess(deps.db, principal, request.project_id);
  if (deps.limits) await deps.limits.admitUpload(principal, 0);
  const received = await receiveUpload(deps, principal, {
    fileName: file.fileName,
    contentType: file.contentType,
    body: file.take(),
    maxBytes: file.maxBytes,
    truncated: file.truncated,
  });
  try {
    await hooks.beforeCreate?.(received);
    const upload = await usableUpload(deps, principal, received.uploadId);
    return { order: await insertOrder(deps, principal, project, upload, { ...request, upload_id: received.uploadId }, hooks), received };
  } catch (err) {
    await discardUpload(deps, received);
    throw err;
  }
}

/** Marks an upload's claim that failed inside the creation's transaction. */
class ClaimFailed extends Error {}

async function insertOrder(
  deps: IntakeDeps,
  principal: Principal,
  project: VisibleProject | null,
  upload: UploadRow,
  request: NewOrderRequest,
  hooks: CreationHooks,
): Promise<OrderT> {
  const projectId = project?.id ?? null;
  const now = deps.clock.now();
  const orderId = randomUUID();
  const row = toOrderRow(principal.organizationId, {
    order_id: orderId,
    username: principal.username,
    email: principal.email,
    order_state: INITIAL_STATE,
    order_title: request.order_title,
    asset_id: upload.upload_id,
    asset_name: request.asset_name ?? upload.file_name,
    asset_last_modified_timestamp: request.asset_last_modified_timestamp ?? String(Math.floor(upload.created_at.getTime() / 1000)),
    ordered_by: request.ordered_by ?? null,
    creation_time: now.toISOString(),
    tags: request.tags ?? [],
    project_id: projectId,
  });
  // The answer is the order as GET /v1/orders/{id} shows it: the stored document is the `json` text about
  // to be written (kept verbatim by PostgreSQL), so it is not read back; its creator sees it (their own
  // personal order, or one in the project just checked), so the visible projects need no second read either.
  const stored: OrderPageRow = { order_id: orderId, project_id: projectId, creation_micros: '', asset_preview_key: row.asset_preview_key, layers: [], body: row.doc };
  const order = toOrderObject(toListedOrder(deps.orders, principal.organizationId, stored, projectMap(project ? [project] : []), Math.floor(Date.now() / 1000)));
  const write: NewOrderWrite = {
    uploadId: upload.upload_id,
    now,
    row,
    asset: { key: upload.object_key, contentType: upload.content_type, size: upload.size },
    event: creationEvent(deps.clock, row, actorOf(principal)),
    job: { kind: ANALYZE_ORDER_JOB, payload: { order_id: orderId }, maxAttempts: maxAttemptsOf(ANALYZE_ORDER_JOB), singletonKey: analysisJobKey(orderId) },
  };
  // One statement: the upload claimed, the analysis queued, the order and its creation event written, or
  // nothing; with the caller's own write in the same transaction when it has one.
  let claimed: boolean;
  if (hooks.inTransaction) {
    const inTransaction = hooks.inTransaction;
    claimed = await deps.db
      .transaction()
      .execute(async (trx) => {
        if (!(await insertOrderClaimingUpload(trx, write))) throw new ClaimFailed();
        await inTransaction(trx, order);
        return true;
      })
      .catch((err: unknown) => {
        if (err instanceof ClaimFailed) return false;
        throw err;
      });
  } else {
    claimed = await insertOrderClaimingUpload(deps.db, write);
  }
  if (!claimed) throw new UploadRejectedError(await claimProblem(deps, principal, upload), request.upload_id);
  deps.onJobQueued?.();
  return order;
}

/**
 * The customer's answer to `Action Required`: the message (and any evidence uploads) are recorded and the
 * order returns to `In Progress` for review. In any other state: 409.
 * @throws NotFoundError (order outside the caller's view), IllegalTransitionError (409), UploadRejectedError
 */
export async function respondToOrder(deps: IntakeDeps, principal: Principal, orderId: string, request: OrderResponseRequest): Promise<OrderT> {
  const visible = await findVisibleOrder(deps.orders, principal, orderId);
  if (!visible) throw new NotFoundError('errors.order_not_found');
  if (visible.project && !principal.isAdmin && !WRITING_ROLES.has(visible.project.userRole)) throw new ProjectRoleForbiddenError(visible.project.userRole);
  if (visible.order_state !== 'Action Required') throw new ApiError(409, 'errors.not_awaiting_response', { vars: { state: visible.order_state } });
  const evidence: UploadRow[] = [];
  for (const [i, id] of (request.upload_ids ?? []).entries()) evidence.push(await usableUpload(deps, principal, id, i));
  const now = deps.clock.now();
  await deps.db.transaction().execute(async (trx) => {
    for (const [i, upload] of evidence.entries()) {
      if (!(await claimUpload(trx, upload.upload_id, orderId, now))) throw new UploadRejectedError(await claimProblem(deps, principal, upload), upload.upload_id, i);
    }
    await changeOrderIn(trx, deps.clock, orderId, actorOf(principal), {
      to: 'In Progress',
      onlyFrom: ['Action Required'],
      // Recorded as `responded`: the message is the event's note, the evidence its changes (docs/history.md).
      event: 'responded',
      reason: request.message,
      ...(evidence.length > 0 ? { changes: { upload_ids: { before: [], after: evidence.map((u) => u.upload_id) } } } : {}),
    });
  });
  const order = await findVisibleOrder(deps.orders, principal, orderId);
  if (!order) throw new NotFoundError('errors.order_not_found');
  return order;
}
