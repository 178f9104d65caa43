/**
 * SQL of the review queue: orders `In Progress` whose analysis has finished (no analysis job queued or
 * running), across organizations, with the time each entered the queue (its creation, or the customer's
 * response after `Action Required`: the newest move into `In Progress` from another state), whether it came
 * back from `Action Required`, and the live claim on it.
 */
import { sql } from 'kysely';
import type { Executor } from '../../storage/database.js';

export interface QueueFilter {
  /** Only this organization's orders. */
  organizationId?: string | null;
  /** Only orders that came back from `Action Required`. */
  cameBack?: boolean;
  /** Never the reviewer's own organization (separation of duties). */
  excludeOrganizationId: string;
  now: Date;
  limit: number;
}

export interface QueueRow {
  order_id: string;
  organization_id: string;
  organization_name: string;
  order_title: string;
  asset_name: string;
  entered_at: Date;
  came_back: boolean;
  claimed_by_name: string | null;
  claimed_by_email: string | null;
  claim_expires_at: Date | null;
}

export interface QueueCountRow {
  organization_id: string;
  organization_name: string;
  came_back: boolean;
  n: number;
}

/** The queue's rows with their entry time; the filters are applied by the callers below. */
function queueRows(db: Executor, excludeOrganizationId: string) {
  return sql`
    SELECT o.order_id, o.organization_id::text AS organization_id, org.name AS organization_name,
           o.doc->>'order_title' AS order_title, o.doc->>'asset_name' AS asset_name,
           COALESCE(e.occurred_at, o.creation_time) AS entered_at,
           COALESCE(e.from_state = 'Action Required', false) AS came_back
    FROM orders o
    JOIN organizations org ON org.id = o.organization_id
    LEFT JOIN LATERAL (
      SELECT ev.occurred_at, ev.from_state FROM order_events ev
      WHERE ev.order_id = o.order_id AND ev.to_state = 'In Progress' AND ev.from_state IS DISTINCT FROM 'In Progress'
      ORDER BY ev.id DESC LIMIT 1
    ) e ON true
    WHERE o.order_state = 'In Progress'
      AND o.organization_id <> ${excludeOrganizationId}::uuid
      AND NOT EXISTS (
        SELECT 1 FROM jobs j WHERE j.singleton_key = 'analyze:' || o.order_id AND j.state IN ('queued', 'running')
      )`;
}

/** The queue, oldest entry first, at most `limit` rows. */
export async function listQueue(db: Executor, filter: QueueFilter): Promise<QueueRow[]> {
  const result = await sql<QueueRow>`
    WITH q AS (${queueRows(db, filter.excludeOrganizationId)})
    SELECT q.*, u.username AS claimed_by_name, u.email AS claimed_by_email, c.expires_at AS claim_expires_at
    FROM q
    LEFT JOIN review_claims c ON c.order_id = q.order_id AND c.expires_at > ${filter.now}
    LEFT JOIN users u ON u.id = c.reviewer_id
    WHERE (${filter.organizationId ?? null}::text IS NULL OR q.organization_id = ${filter.organizationId ?? null}::text)
      AND (${filter.cameBack ?? false}::boolean = false OR q.came_back)
    ORDER BY q.entered_at, q.order_id
    LIMIT ${filter.limit}`.execute(db);
  return result.rows;
}

/** Queue sizes per organization and "came back" flag (the page sums them into its filter counts). */
export async function countQueue(db: Executor, excludeOrganizationId: string): Promise<QueueCountRow[]> {
  const result = await sql<QueueCountRow>`
    WITH q AS (${queueRows(db, excludeOrganizationId)})
    SELECT organization_id, organization_name, came_back, count(*)::int AS n FROM q
    GROUP BY organization_id, organization_name, came_back`.execute(db);
  return result.rows;
}

/** True while the order's analysis job is queued or running (the order is not in the queue yet). */
export async function analysisPending(db: Executor, orderId: string): Promise<boolean> {
  const row = await db
    .selectFrom('jobs')
    .select('id')
    .where('singleton_key', '=', `analyze:${orderId}`)
    .where('state', 'in', ['queued', 'running'])
    .executeTakeFirst();
  return row !== undefined;
}

export interface RecentCertificateRow {
  certificate_id: string;
  order_id: string;
  order_title: string;
  asset_name: string;
  organization_name: string;
  issued_at: Date;
  revoked_at: Date | null;
}

/**
 * The reviewer's own newest certificates (the queue's "Recently certified" list, the way back to a certified
 * order's review page and its Revoke control): only orders this reviewer decided, never unrelated ones, and
 * never their own organization's. `issued_by` is the reviewer's e-mail (index certificates_issued_by_idx).
 */
export async function listRecentCertificates(db: Executor, issuedBy: string, excludeOrganizationId: string, limit: number): Promise<RecentCertificateRow[]> {
  const result = await sql<RecentCertificateRow>`
    SELECT c.certificate_id::text AS certificate_id, c.order_id, o.doc->>'order_title' AS order_title, c.asset_name,
           g.name AS organization_name, c.issued_at, c.revoked_at
    FROM certificates c
    JOIN orders o ON o.order_id = c.order_id
    JOIN organizations g ON g.id = c.organization_id
    WHERE c.issued_by = ${issuedBy} AND c.organization_id <> ${excludeOrganizationId}::uuid
    ORDER BY c.issued_at DESC, c.certificate_id
    LIMIT ${limit}`.execute(db);
  return result.rows;
}
