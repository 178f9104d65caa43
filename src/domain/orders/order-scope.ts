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

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/**
 * The scope of a filter when it is known before the caller's visible projects are read, so one statement
 * can read both (the listing's first read): every filter but a non-administrator's All Projects, which
 * merges the visible projects. A project's scope is a candidate only: `resolveOrderScope` with the visible
 * projects read alongside decides whether the caller sees it (what was read for it is then discarded).
 * null: the visible projects are needed first.
 * @throws OrderScopeNotFoundError for a project filter that is not a UUID (no project has such an id).
 */
export function scopeBeforeProjects(principal: Principal, projectFilter: string): OrderScope | null {
  const organizationId = principal.organizationId;
  if (projectFilter === ALL_PROJECTS) return principal.isAdmin ? { kind: 'organization', organizationId } : null;
  if (projectFilter === PERSONAL_CERTIFICATES) {
    return principal.isAdmin ? { kind: 'personal-all', organizationId } : { kind: 'owner', organizationId, ownerKey: principal.emailKey };
  }
  const wanted = projectFilter.toLowerCase();
  if (!UUID.test(wanted)) throw new OrderScopeNotFoundError();
  return { kind: 'project', organizationId, projectId: wanted };
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
