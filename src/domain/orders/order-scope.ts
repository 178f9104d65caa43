/**
 * Which orders a `project_id` filter selects for a caller (docs/orders.md). Pure: the caller's
 * visible projects come from the database, the rules live here.
 */
import { ALL_PROJECTS, PERSONAL_CERTIFICATES } from '../../contract/schemas.js';
import type { Principal } from '../principal.js';
import type { VisibleProject } from './visible-projects.repository.js';

/**
 * The set of orders a listing walks. Each kind maps onto one keyset index (member: one index scan per
 * visible project plus the caller's personal orders, merged).
 */
export type OrderScope =
  | { kind: 'organization'; organizationId: string }
  | { kind: 'personal-all'; organizationId: string }
  | { kind: 'owner'; organizationId: string; ownerKey: string }
  | { kind: 'project'; organizationId: string; projectId: string }
  | { kind: 'member'; organizationId: string; projectIds: string[]; ownerKey: string };

/** The filter names nothing the caller may see (answered 404, exactly like a missing project). */
export class OrderScopeNotFoundError extends Error {
  override name = 'OrderScopeNotFoundError';
  constructor() {
    super('Project not found');
  }
}

/** Resolves a `project_id` filter; throws OrderScopeNotFoundError for anything outside the caller's view. */
export function resolveOrderScope(principal: Principal, projectFilter: string, visible: VisibleProject[]): OrderScope {
  const organizationId = principal.organizationId;
  if (projectFilter === ALL_PROJECTS) {
    return principal.isAdmin
      ? { kind: 'organization', organizationId }
      : { kind: 'member', organizationId, projectIds: visible.map((p) => p.id), ownerKey: principal.emailKey };
  }
  if (projectFilter === PERSONAL_CERTIFICATES) {
    return principal.isAdmin ? { kind: 'personal-all', organizationId } : { kind: 'owner', organizationId, ownerKey: principal.emailKey };
  }
  // UUIDs compare case-insensitively (PostgreSQL prints them in lower case); anything else matches nothing.
  const wanted = projectFilter.toLowerCase();
  const project = visible.find((p) => p.id === wanted);
  if (!project) throw new OrderScopeNotFoundError();
  return { kind: 'project', organizationId, projectId: project.id };
}

const collator = new Intl.Collator('en', { sensitivity: 'base' });

/** Sorts names as a person expects (case- and accent-insensitive), ties by code point so the order is total. */
export function sortProjectNames(names: string[]): string[] {
  return [...names].sort((a, b) => collator.compare(a, b) || (a < b ? -1 : a > b ? 1 : 0));
}

/** `project_names` of a response: Personal Certificates then the visible projects for All Projects, else empty. */
export function projectNamesFor(projectFilter: string, visible: VisibleProject[]): string[] {
  if (projectFilter !== ALL_PROJECTS) return [];
  return [PERSONAL_CERTIFICATES, ...sortProjectNames(visible.map((p) => p.name))];
}
