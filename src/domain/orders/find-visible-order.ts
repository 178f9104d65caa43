/** One order for a single-order page, under the same visibility as the listing (docs/orders.md). */
import type { OrderT } from '../../contract/schemas.js';
import type { Executor } from '../../storage/database.js';
import type { Principal } from '../principal.js';
import { findOrderRow, type SingleOrderRow } from './order-listing.repository.js';
import { projectMap, toListedOrder } from './order-listing.service.js';
import { toOrderObject } from './order-response.js';
import type { OrdersContext } from './orders-context.js';
import { listVisibleProjects, type VisibleProject } from './visible-projects.repository.js';

/** The order's row and the caller's visible projects, or null when the caller may not see the order. */
async function visibleOrderRow(db: Executor, principal: Principal, orderId: string): Promise<{ row: SingleOrderRow; visible: VisibleProject[] } | null> {
  const row = await findOrderRow(db, principal.organizationId, orderId);
  if (!row) return null;
  const visible = await listVisibleProjects(db, principal);
  if (row.project_id === null) {
    if (!principal.isAdmin && row.owner_key !== principal.emailKey) return null;
  } else if (!visible.some((p) => p.id === row.project_id)) {
    return null;
  }
  return { row, visible };
}

/**
 * The full Order (presigned URLs, the caller's project role), or null when it does not exist or the caller
 * may not see it: the two are indistinguishable on purpose.
 */
export async function findVisibleOrder(ctx: OrdersContext, principal: Principal, orderId: string): Promise<OrderT | null> {
  const found = await visibleOrderRow(ctx.db, principal, orderId);
  if (!found) return null;
  return toOrderObject(toListedOrder(ctx, principal.organizationId, found.row, projectMap(found.visible), Math.floor(Date.now() / 1000)));
}

/** True when the order exists and the caller sees it (the visibility of findVisibleOrder, without building the order). */
export async function canSeeOrder(db: Executor, principal: Principal, orderId: string): Promise<boolean> {
  return (await visibleOrderRow(db, principal, orderId)) !== null;
}

/** True when the order exists and the caller may see it (what reads of an order's sub-resources check). */
export async function isOrderVisible(db: Executor, principal: Principal, orderId: string): Promise<boolean> {
  return canSeeOrder(db, principal, orderId);
}
