/**
 * The project endpoints' rules (docs/api.md): an organization administrator sees every project of the
 * organization, any other member the projects they belong to, nobody anything of another organization.
 * A project outside the caller's view is reported exactly like one that does not exist.
 */
import type { ProjectT } from '../../contract/schemas.js';
import type { Executor } from '../../storage/database.js';
import { NotFoundError } from '../errors.js';
import type { Principal } from '../principal.js';
import { normalizeUuid } from '../uuid.js';
import { byName, mapProject } from './project.mapper.js';
import { findProjectMembers, findProjects, type ProjectRow } from './project.repository.js';

async function withMembers(db: Executor, rows: ProjectRow[]): Promise<ProjectT[]> {
  const members = await findProjectMembers(db, rows.map((r) => r.id));
  return rows.map((row) => mapProject(row, members.filter((m) => m.project_id === row.id)));
}

/** The caller's projects, sorted by name (collation order, ties by code point, then id). */
export async function listProjects(db: Executor, principal: Principal): Promise<ProjectT[]> {
  const rows = await findProjects(db, { organizationId: principal.organizationId, memberUserId: principal.isAdmin ? null : principal.userId });
  rows.sort((a, b) => byName(a.name, b.name) || (a.id < b.id ? -1 : 1));
  return withMembers(db, rows);
}

/** One project the caller sees; NotFoundError when the id is not a UUID, unknown or not visible. */
export async function getProject(db: Executor, principal: Principal, projectId: string): Promise<ProjectT> {
  const id = normalizeUuid(projectId);
  // Checked before the query: a malformed id must never reach PostgreSQL's uuid cast.
  if (id === null) throw new NotFoundError('errors.project_not_found');
  const rows = await findProjects(db, {
    organizationId: principal.organizationId,
    memberUserId: principal.isAdmin ? null : principal.userId,
    projectId: id,
  });
  const [project] = await withMembers(db, rows);
  if (!project) throw new NotFoundError('errors.project_not_found');
  return project;
}
