/**
 * What a review page shows ("only what a review needs", docs/review.md): the order with presigned URLs of its
 * preview, layers and original file; its organization's name; the project's name and detection_config;
 * the analysis (inside the order); the reviewers' requests for evidence and the customer's responses with
 * their evidence files. Never member lists, credentials or other orders.
 */
import type { DetectionConfigT, OrderT } from '../../contract/schemas.js';
import { isKeyOfOrganization } from '../../storage/object-storage/object-key.js';
import { NotFoundError } from '../errors.js';
import { findOrderRow } from '../orders/order-listing.repository.js';
import { toListedOrder } from '../orders/order-listing.service.js';
import { readOrder } from '../orders/order-lifecycle.repository.js';
import { toOrderObject } from '../orders/order-response.js';
import type { OrdersContext } from '../orders/orders-context.js';
import { BUILT_IN_DETECTION_THRESHOLDS as BUILT_IN } from '../projects/detection-defaults.js';
import { findOrderUploads, findOrganizationAndProject, listEvidenceRounds, type StateMoveRow } from './review-material.repository.js';

export interface ReviewFile {
  name: string;
  contentType: string;
  url: string;
}

/** One exchange about evidence: a request (by a reviewer or the analysis) or the customer's response. */
export interface EvidenceEntry {
  kind: 'request' | 'response';
  at: Date;
  /** The reviewer's note, the analysis's reason, or the customer's message. */
  text: string;
  /** Requests: whether a reviewer (not the analysis) asked. */
  byReviewer: boolean;
  evidence: ReviewFile[];
}

export interface ReviewMaterial {
  order: OrderT;
  organizationName: string;
  projectName: string | null;
  detectionConfig: DetectionConfigT;
  original: ReviewFile | null;
  evidence: EvidenceEntry[];
}

/** A `responded` event: the customer's message is its note, the evidence its `upload_ids` change. */
function responseOf(row: StateMoveRow): { message: string; uploadIds: string[] } {
  const after = row.changes?.upload_ids?.after;
  return { message: row.note ?? '', uploadIds: Array.isArray(after) ? after.filter((u): u is string => typeof u === 'string') : [] };
}

/** Everything the review page of `orderId` shows; the caller checked the reviewer may see it. */
export async function loadReviewMaterial(ctx: OrdersContext, orderId: string): Promise<ReviewMaterial> {
  const stored = await readOrder(ctx.db, orderId);
  if (!stored) throw new NotFoundError('errors.order_not_found');
  const organizationId = stored.organization_id;
  const [row, names, rounds] = await Promise.all([
    findOrderRow(ctx.db, organizationId, orderId),
    findOrganizationAndProject(ctx.db, organizationId, stored.project_id),
    listEvidenceRounds(ctx.db, orderId),
  ]);
  if (!row || !names) throw new NotFoundError('errors.order_not_found');
  const nowSeconds = Math.floor(Date.now() / 1000);
  const presign = (key: string) => (isKeyOfOrganization(key, organizationId) ? ctx.presigner.presign(key, nowSeconds) : null);
  const order = toOrderObject(toListedOrder(ctx, organizationId, row, new Map(), nowSeconds));
  const responses = rounds.filter((r) => r.from_state === 'Action Required').map((r) => ({ row: r, ...responseOf(r) }));
  const uploads = await findOrderUploads(ctx.db, orderId, responses.flatMap((r) => r.uploadIds));
  const evidence: EvidenceEntry[] = rounds.map((r) => {
    if (r.to_state === 'Action Required') return { kind: 'request', at: r.occurred_at, text: r.note ?? '', byReviewer: r.actor_kind === 'user', evidence: [] };
    const response = responses.find((x) => x.row.id === r.id)!;
    const files = response.uploadIds
      .map((id) => uploads.find((u) => u.upload_id === id))
      .filter((u) => u !== undefined)
      .map((u) => ({ name: u.file_name, contentType: u.content_type, url: presign(u.object_key) }))
      .filter((f): f is ReviewFile => f.url !== null);
    return { kind: 'response', at: r.occurred_at, text: response.message, byReviewer: false, evidence: files };
  });
  const originalUrl = stored.asset_key ? presign(stored.asset_key) : null;
  const orgObject = names.org_object_flag_threshold ?? BUILT_IN.object_flag_threshold;
  const orgWeighted = names.org_weighted_confidence_threshold ?? BUILT_IN.weighted_confidence_threshold;
  return {
    order,
    organizationName: names.organization_name,
    projectName: names.project_name,
    detectionConfig: {
      object_flag_threshold: names.object_flag_threshold ?? orgObject,
      weighted_confidence_threshold: names.weighted_confidence_threshold ?? orgWeighted,
      default_object_flag_threshold: BUILT_IN.object_flag_threshold,
      default_weighted_confidence_threshold: BUILT_IN.weighted_confidence_threshold,
      org_object_flag_threshold: orgObject,
      org_weighted_confidence_threshold: orgWeighted,
    },
    original: originalUrl ? { name: order.asset_name, contentType: stored.asset_content_type ?? 'application/octet-stream', url: originalUrl } : null,
    evidence,
  };
}
