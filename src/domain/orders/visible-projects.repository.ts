/** The projects a caller sees, with the caller's role in each (docs/decisions.md, identity and access). */
import { sql, type RawBuilder } from 'kysely';
import type { ProjectRoleValue } from '../../contract/schemas.js';
import type { Executor } from '../../storage/database.js';
import type { Principal } from '../principal.js';

export interface VisibleProject {
  /** Lower-case UUID. */
  id: string;
  name: string;
  /** The explicit membership role, else `admin` for an organization administrator. */
  userRole: ProjectRoleValue;
}

/**
 * The rule, as one SQL expression: the visible projects as a JSON array of [id, name, role] (text). An
 * administrator sees every project of the organization; anyone else the projects they are a member of.
 * A statement that needs them besides other reads (the listing's first read) embeds it, so the rule is
 * written once.
 */
export function visibleProjectsJson(principal: Principal): RawBuilder<string> {
  return sql<string>`(SELECT coalesce(json_agg(json_build_array(p.id::text, p.name, coalesce(m.role, 'admin'))), '[]')::text
    FROM projects p
    LEFT JOIN project_members m ON m.project_id = p.id AND m.user_id = ${principal.userId}::uuid
    WHERE p.organization_id = ${principal.organizationId}::uuid
      AND (${principal.isAdmin}::boolean OR m.user_id IS NOT NULL))`;
}

/** visibleProjectsJson's text as projects. */
export function parseVisibleProjects(json: string): VisibleProject[] {
  return (JSON.parse(json) as Array<[string, string, ProjectRoleValue]>).map(([id, name, userRole]) => ({ id, name, userRole }));
}

export async function listVisibleProjects(db: Executor, principal: Principal): Promise<VisibleProject[]> {
  const result = await sql<{ projects: string }>`SELECT ${visibleProjectsJson(principal)} AS projects`.execute(db);
  return parseVisibleProjects(result.rows[0]!.projects);
}
