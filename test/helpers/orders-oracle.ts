/**
 * An independent model of order visibility for the orders suites: reads every order and membership of an
 * organization plainly and applies docs/orders.md's visibility in JavaScript, so a listing's SQL is checked against
 * something it shares no code with.
 */
import { sql } from 'kysely';
import { principalFor, principalUserOfRow, type Principal } from '../../src/domain/principal.js';
import type { DatabaseHandle } from '../../src/storage/database.js';
import { USERS, type FixtureUserName } from './fixtures.js';

export interface OracleOrder {
  order_id: string;
  project_id: string | null;
  owner_key: string;
  order_state: string;
  micros: bigint;
}

/** The Principal of a fixture user, read from the database (what the bearer plugin resolves). */
export async function principalOf(handle: DatabaseHandle, name: FixtureUserName): Promise<Principal> {
  const u = await handle.db.selectFrom('users').selectAll().where('email_key', '=', USERS[name].email.toLowerCase()).executeTakeFirstOrThrow();
  return principalFor(principalUserOfRow({ ...u, user_id: u.id }), USERS[name].clientId, ['enterprise-api-access/read']);
}

function byteCompare(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
}

/** Ids of the orders `principal` sees under `filter`, newest first: the expected concatenation of all pages. */
export async function expectedOrderIds(handle: DatabaseHandle, principal: Principal, filter: string): Promise<string[]> {
  const orders = await sql<{ order_id: string; project_id: string | null; owner_key: string; micros: string }>`
    SELECT order_id, project_id::text AS project_id, owner_key, ((extract(epoch FROM creation_time) * 1000000)::bigint)::text AS micros
    FROM orders WHERE organization_id = ${principal.organizationId}::uuid`.execute(handle.db);
  const memberships = await sql<{ project_id: string }>`
    SELECT project_id::text AS project_id FROM project_members WHERE user_id = ${principal.userId}::uuid`.execute(handle.db);
  const member = new Set(memberships.rows.map((m) => m.project_id));
  const sees = (o: { project_id: string | null; owner_key: string }) =>
    o.project_id === null ? principal.isAdmin || o.owner_key === principal.emailKey : principal.isAdmin || member.has(o.project_id);
  const inFilter = (o: { project_id: string | null }) =>
    filter === 'All Projects' ? true : filter === 'Personal Certificates' ? o.project_id === null : o.project_id === filter.toLowerCase();
  return orders.rows
    .filter((o) => sees(o) && inFilter(o))
    .map((o) => ({ ...o, m: BigInt(o.micros) }))
    .sort((a, b) => (a.m === b.m ? -byteCompare(a.order_id, b.order_id) : a.m > b.m ? -1 : 1))
    .map((o) => o.order_id);
}

/** Per-state counts of the same set, by counting rows (what order_stats must equal). */
export async function expectedStats(handle: DatabaseHandle, principal: Principal, filter: string): Promise<Record<string, number>> {
  const ids = new Set(await expectedOrderIds(handle, principal, filter));
  const rows = await handle.db.selectFrom('orders').select(['order_id', 'order_state']).where('organization_id', '=', principal.organizationId).execute();
  const key: Record<string, string> = {
    'In Progress': 'total_in_progress',
    'Human Certified': 'total_certified',
    'Action Required': 'total_action_required',
    Reviewed: 'total_reviewed',
    Failed: 'total_failed',
    'Unsupported File': 'total_unsupported',
  };
  const stats: Record<string, number> = {
    total_in_progress: 0, total_certified: 0, total_action_required: 0, total_reviewed: 0, total_failed: 0, total_unsupported: 0, total_orders: 0,
  };
  for (const r of rows) {
    if (!ids.has(r.order_id)) continue;
    stats[key[r.order_state]!]! += 1;
    stats.total_orders! += 1;
  }
  return stats;
}
