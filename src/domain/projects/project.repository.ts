/**
 * Project reads: a project with its organization's thresholds, and project members. Visibility is the
 * service's rule; the queries only take the filter it asks for.
 */
import { sql } from 'kysely';
import type { Executor } from '../../storage/database.js';
import { arrayLiteral } from '../../storage/array-literal.js';
import type { ProjectRole } from '../../storage/schema.js';

export interface ProjectRow {
  id: string;
  name: string;
  date_created: Date;
  object_flag_threshold: number | null;
  weighted_confidence_threshold: number | null;
  org_object_flag_threshold: number | null;
  org_weighted_confidence_threshold: number | null;
}

export interface ProjectMemberRow {
  project_id: string;
  email: string;
  email_key: string;
  role: ProjectRole;
}

export interface ProjectFilter {
  organizationId: string;
  /** Only projects this user is a member of; null: every project of the organization. */
  memberUserId: string | null;
  /** Only this project (a lower-case UUID). */
  projectId?: string;
}

/** Projects of one organization, optionally restricted to one member's projects and to one id. */
export async function findProjects(db: Executor, filter: ProjectFilter): Promise<ProjectRow[]> {
  let query = db
    .selectFrom('projects as p')
    .innerJoin('organizations as o', 'o.id', 'p.organization_id')
    .select([
      'p.id',
      'p.name',
      'p.date_created',
      'p.object_flag_threshold',
      'p.weighted_confidence_threshold',
      'o.object_flag_threshold as org_object_flag_threshold',
      'o.weighted_confidence_threshold as org_weighted_confidence_threshold',
    ])
    .where('p.organization_id', '=', filter.organizationId);
  if (filter.projectId !== undefined) query = query.where('p.id', '=', filter.projectId);
  if (filter.memberUserId !== null) {
    const userId = filter.memberUserId;
    query = query.where((eb) =>
      eb.exists(eb.selectFrom('project_members as m').select('m.user_id').whereRef('m.project_id', '=', 'p.id').where('m.user_id', '=', userId)),
    );
  }
  return query.execute();
}

/** Members of the given projects with their e-mail and role. */
export async function findProjectMembers(db: Executor, projectIds: readonly string[]): Promise<ProjectMemberRow[]> {
  if (projectIds.length === 0) return [];
  return db
    .selectFrom('project_members as m')
    .innerJoin('users as u', 'u.id', 'm.user_id')
    .select(['m.project_id', 'u.email', 'u.email_key', 'm.role'])
    // One array parameter, not an IN list: the statement's text stays the same for any number of projects,
    // so it is prepared once (storage/monitored-pg-pool.ts).
    .where(sql<boolean>`m.project_id = ANY(${arrayLiteral(projectIds)}::uuid[])`)
    .execute();
}

/** A project's own columns (no thresholds): what operator commands show. */
export interface ProjectRecord {
  id: string;
  organization_id: string;
  name: string;
  date_created: Date;
}

/** One project by id (lower-case UUID), or undefined. */
export async function findProjectRecord(db: Executor, id: string): Promise<ProjectRecord | undefined> {
  return db.selectFrom('projects').select(['id', 'organization_id', 'name', 'date_created']).where('id', '=', id).executeTakeFirst();
}

/** Every project of an organization, by name then id. */
export async function listProjectRecords(db: Executor, organizationId: string): Promise<ProjectRecord[]> {
  return db.selectFrom('projects').select(['id', 'organization_id', 'name', 'date_created']).where('organization_id', '=', organizationId).orderBy('name').orderBy('id').execute();
}

/** Which of `ids` (lower-case UUIDs) are projects of the organization. */
export async function existingProjectIds(db: Executor, organizationId: string, ids: readonly string[]): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const rows = await db
    .selectFrom('projects')
    .select('id')
    .where('organization_id', '=', organizationId)
    .where(sql<boolean>`id = ANY(${arrayLiteral(ids)}::uuid[])`)
    .execute();
  return new Set(rows.map((r) => r.id));
}
