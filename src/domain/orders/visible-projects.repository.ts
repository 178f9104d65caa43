/** The projects a caller sees, with the caller's role in each (docs/decisions.md, identity and access). */
import { sql } from 'kysely';
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

/** An administrator sees every project of the organization; anyone else the projects they are a member of. */
export async function listVisibleProjects(db: Executor, principal: Principal): Promise<VisibleProject[]> {
  const result = await sql<VisibleProject>`
    SELECT p.id::text AS id, p.name, coalesce(m.role, 'admin') AS "userRole"
    FROM projects p
    LEFT JOIN project_members m ON m.project_id = p.id AND m.user_id = ${principal.userId}::uuid
    WHERE p.organization_id = ${principal.organizationId}::uuid
      AND (${principal.isAdmin}::boolean OR m.user_id IS NOT NULL)`.execute(db);
  return result.rows;
}
