/**
 * Object keys of what analysis renders for an order, under the organization's own prefix like every
 * other object of it: `orgs/<organization id>/orders/<order id>/preview.jpg` and `…/layers/<n>.png`.
 * Rendering again (a retried job) writes the same keys, so nothing is left behind.
 */
import { createHash } from 'node:crypto';

/** Order ids of the API are UUIDs; an imported id with other characters is hashed into a safe segment. */
function segment(orderId: string): string {
  return /^[A-Za-z0-9_-]{1,200}$/.test(orderId) ? orderId : `h-${createHash('sha256').update(orderId).digest('hex').slice(0, 40)}`;
}

function orderPrefix(organizationId: string, orderId: string): string {
  return `orgs/${organizationId.toLowerCase()}/orders/${segment(orderId)}`;
}

export function previewObjectKey(organizationId: string, orderId: string): string {
  return `${orderPrefix(organizationId, orderId)}/preview.jpg`;
}

/** `index` counts from 1, bottom layer first. */
export function layerObjectKey(organizationId: string, orderId: string, index: number): string {
  return `${orderPrefix(organizationId, orderId)}/layers/${index}.png`;
}
