/** The review queue with its filter counts (docs/review.md). */
import type { Db } from '../../storage/database.js';
import type { Clock } from '../time/clock.js';
import { countQueue, listQueue, listRecentCertificates, type QueueRow, type RecentCertificateRow } from './review-queue.repository.js';
import type { Reviewer } from './review.service.js';

/** Rows shown on one queue page. */
export const QUEUE_PAGE_SIZE = 200;
/** Certificates listed under "Recently certified". */
export const RECENT_CERTIFICATES = 10;

export interface QueueCounts {
  total: number;
  cameBack: number;
  organizations: Array<{ id: string; name: string; count: number }>;
}

export interface ReviewQueue {
  items: QueueRow[];
  counts: QueueCounts;
  /** The reviewer's own newest certificates: links to their orders' review pages (Revoke). */
  recentCertificates: RecentCertificateRow[];
}

export async function loadQueue(
  deps: { db: Db; clock: Clock },
  reviewer: Reviewer,
  filter: { organizationId: string | null; cameBack: boolean },
): Promise<ReviewQueue> {
  const now = deps.clock.now();
  const [items, countRows, recentCertificates] = await Promise.all([
    listQueue(deps.db, { ...filter, excludeOrganizationId: reviewer.organizationId, now, limit: QUEUE_PAGE_SIZE }),
    countQueue(deps.db, reviewer.organizationId),
    listRecentCertificates(deps.db, reviewer.email, reviewer.organizationId, RECENT_CERTIFICATES),
  ]);
  const organizations = new Map<string, { id: string; name: string; count: number }>();
  let total = 0;
  let cameBack = 0;
  for (const row of countRows) {
    total += row.n;
    if (row.came_back) cameBack += row.n;
    const org = organizations.get(row.organization_id) ?? { id: row.organization_id, name: row.organization_name, count: 0 };
    org.count += row.n;
    organizations.set(row.organization_id, org);
  }
  return { items, counts: { total, cameBack, organizations: [...organizations.values()].sort((a, b) => a.name.localeCompare(b.name)) }, recentCertificates };
}
