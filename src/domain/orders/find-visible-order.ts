/** One order for a single-order page, under the same visibility as the listing (docs/orders.md). */
import type { OrderT } from '../../contract/schemas.js';
import type { Principal } from '../principal.js';
import { findOrderRow } from './order-listing.repository.js';
import { projectMap, toListedOrder } from './order-listing.service.js';
import { toOrderObject } from './order-response.js';
import type { OrdersContext } from './orders-context.js';
import { listVisibleProjects } from './visible-projects.repository.js';

/**
 * The full Order (presigned URLs, the caller's project role), or null when it does not exist or the caller
 * may not see it: the two are indistinguishable on purpose.
 */
export async function findVisibleOrder(ctx: OrdersContext, principal: Principal, orderId: string): Promise<OrderT | null> {
  const row = await findOrderRow(ctx.db, principal.organizationId, orderId);
  if (!row) return null;
  const visible = await listVisibleProjects(ctx.db, principal);
  if (row.project_id === null) {
    if (!principal.isAdmin && row.owner_key !== principal.emailKey) return null;
  } else if (!visible.some((p) => p.id === row.project_id)) {
    return null;
  }
  return toOrderObject(toListedOrder(ctx, principal.organizationId, row, projectMap(visible), Math.floor(Date.now() / 1000)));
}
