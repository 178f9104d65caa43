/** Project writes (provisioning and admin commands). Reads and visibility live beside it. */
import type { Executor } from '../../storage/database.js';
import type { ProjectRole } from '../../storage/schema.js';

export interface ProjectWrite {
  id: string;
  organization_id: string;
  name: string;
  /** undefined: now() on insert, unchanged on update. */
  date_created?: string;
  object_flag_threshold?: number | null;
  weighted_confidence_threshold?: number | null;
}

/** A project id of another organization, or a name already used in the organization. */
export class ProjectConflictError extends Error {
  override name = 'ProjectConflictError';
  constructor(
    /** The field at fault. */
    readonly field: 'id' | 'name',
    message: string,
  ) {
    super(message);
  }
}

/** Inserts or updates a project by id; returns true when something changed. */
export async function upsertProject(db: Executor, project: ProjectWrite): Promise<boolean> {
  const existing = await db.selectFrom('projects').selectAll().where('id', '=', project.id).executeTakeFirst();
  if (existing && existing.organization_id !== project.organization_id) {
    throw new ProjectConflictError('id', `project ${project.id} already belongs to another organization`);
  }
  const sameName = await db
    .selectFrom('projects')
    .select('id')
    .where('organization_id', '=', project.organization_id)
    .where('name', '=', project.name)
    .where('id', '!=', project.id)
    .executeTakeFirst();
  if (sameName) throw new ProjectConflictError('name', `a project named "${project.name}" already exists in the organization`);
  const thresholds = {
    object_flag_threshold: project.object_flag_threshold ?? null,
    weighted_confidence_threshold: project.weighted_confidence_threshold ?? null,
  };
  if (!existing) {
    await db
      .insertInto('projects')
      .values({ id: project.id, organization_id: project.organization_id, name: project.name, ...thresholds, ...(project.date_created ? { date_created: project.date_created } : {}) })
      .execute();
    return true;
  }
  const dateChanged = project.date_created !== undefined && new Date(project.date_created).getTime() !== existing.date_created.getTime();
  const changed =
    existing.name !== project.name ||
    existing.object_flag_threshold !== thresholds.object_flag_threshold ||
    existing.weighted_confidence_threshold !== thresholds.weighted_confidence_threshold ||
    dateChanged;
  if (changed) {
    await db
      .updateTable('projects')
      .set({ name: project.name, ...thresholds, ...(project.date_created ? { date_created: project.date_created } : {}) })
      .where('id', '=', project.id)
      .execute();
  }
  return changed;
}

/** Adds a member or changes their role. */
export async function setProjectMember(db: Executor, projectId: string, userId: string, role: ProjectRole): Promise<void> {
  await db
    .insertInto('project_members')
    .values({ project_id: projectId, user_id: userId, role })
    .onConflict((oc) => oc.columns(['project_id', 'user_id']).doUpdateSet({ role }).where('project_members.role', '!=', role))
    .execute();
}

export async function removeProjectMember(db: Executor, projectId: string, userId: string): Promise<boolean> {
  const result = await db.deleteFrom('project_members').where('project_id', '=', projectId).where('user_id', '=', userId).executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

/** Makes the project's members exactly this list (declarative provisioning). */
export async function replaceProjectMembers(db: Executor, projectId: string, members: Array<{ userId: string; role: ProjectRole }>): Promise<void> {
  const keep = members.map((m) => m.userId);
  let del = db.deleteFrom('project_members').where('project_id', '=', projectId);
  if (keep.length > 0) del = del.where('user_id', 'not in', keep);
  await del.execute();
  for (const m of members) await setProjectMember(db, projectId, m.userId, m.role);
}
