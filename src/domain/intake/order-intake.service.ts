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
import type { Db } from '../../storage/database.js';
import type { ObjectStorage } from '../../storage/object-storage/index.js';
import { ApiError, NotFoundError } from '../errors.js';
import { findVisibleOrder } from '../orders/find-visible-order.js';
import { INITIAL_STATE } from '../orders/lifecycle.js';
import { toOrderRow } from '../orders/order-document.js';
import { changeOrderIn, creationEvent, type Actor } from '../orders/order-lifecycle.service.js';
import { insertOrderClaimingUpload } from './order-creation.repository.js';
import type { OrdersContext } from '../orders/orders-context.js';
import type { OrderPageRow } from '../orders/order-listing.repository.js';
import { projectMap, toListedOrder } from '../orders/order-listing.service.js';
import { toOrderObject } from '../orders/order-response.js';
import { listVisibleProjects, type VisibleProject } from '../orders/visible-projects.repository.js';
import type { Principal } from '../principal.js';
import type { Clock } from '../time/clock.js';
import { claimUpload, findUserUpload, type UploadRow } from './upload.repository.js';

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

/**
 * Creates an order from an upload: state `In Progress`, the caller as its user, analysis queued.
 * @throws NotFoundError (project outside the caller's view), ProjectRoleForbiddenError, UploadRejectedError
 */
export async function createOrderFromUpload(deps: IntakeDeps, principal: Principal, request: NewOrderRequest): Promise<OrderT> {
  const project = await checkProjectAccess(deps.db, principal, request.project_id);
  const projectId = project?.id ?? null;
  const upload = await usableUpload(deps, principal, request.upload_id);
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
  // One statement: the upload claimed, the analysis queued, the order and its creation event written, or nothing.
  const claimed = await insertOrderClaimingUpload(deps.db, {
    uploadId: upload.upload_id,
    now,
    row,
    asset: { key: upload.object_key, contentType: upload.content_type, size: upload.size },
    event: creationEvent(deps.clock, row, actorOf(principal)),
    job: { kind: ANALYZE_ORDER_JOB, payload: { order_id: orderId }, maxAttempts: maxAttemptsOf(ANALYZE_ORDER_JOB), singletonKey: analysisJobKey(orderId) },
  });
  if (!claimed) throw new UploadRejectedError(await claimProblem(deps, principal, upload), request.upload_id);
  deps.onJobQueued?.();
  // The answer is the order as GET /v1/orders/{id} shows it: the stored document is the `json` text just
  // written (kept verbatim by PostgreSQL), so it is not read back; its creator sees it (their own personal
  // order, or one in the project just checked), so the visible projects need no second read either.
  const stored: OrderPageRow = { order_id: orderId, project_id: projectId, creation_micros: '', asset_preview_key: row.asset_preview_key, layers: [], body: row.doc };
  return toOrderObject(toListedOrder(deps.orders, principal.organizationId, stored, projectMap(project ? [project] : []), Math.floor(Date.now() / 1000)));
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
      reason: JSON.stringify({ response: request.message, upload_ids: evidence.map((u) => u.upload_id) }),
    });
  });
  const order = await findVisibleOrder(deps.orders, principal, orderId);
  if (!order) throw new NotFoundError('errors.order_not_found');
  return order;
}
