/** Operator actions on projects and their members (`certdesk project ...`). */
import { randomUUID } from 'node:crypto';
import { PROJECT_ROLES } from '../../contract/schemas.js';
import type { Executor } from '../../storage/database.js';
import type { ProjectRole } from '../../storage/schema.js';
import { findProjectMembers, findProjectRecord, listProjectRecords } from './project.repository.js';
import { ProjectConflictError, removeProjectMember, setProjectMember, upsertProject } from './project-writes.repository.js';
import { requireName, requireOrganization } from '../organizations/organization-admin.js';
import { ProvisioningError } from '../provisioning-error.js';
import { isUuid } from '../uuid.js';
import { requireUserInOrganization } from '../users/user-admin.js';

export interface ProjectSummary {
  id: string;
  organization_id: string;
  name: string;
  date_created: string;
  members: Array<{ email: string; role: ProjectRole }>;
}

async function requireProject(db: Executor, id: string) {
  if (!isUuid(id)) throw new ProvisioningError(`project id must be a UUID, got "${id}"`);
  const project = await findProjectRecord(db, id.toLowerCase());
  if (!project) throw new ProvisioningError(`no project with id ${id.toLowerCase()}`);
  return project;
}

async function membersOf(db: Executor, projectIds: string[]): Promise<Map<string, ProjectSummary['members']>> {
  const map = new Map<string, ProjectSummary['members']>(projectIds.map((id) => [id, []]));
  const rows = (await findProjectMembers(db, projectIds)).sort((a, b) => (a.email_key < b.email_key ? -1 : a.email_key > b.email_key ? 1 : 0));
  for (const r of rows) map.get(r.project_id)?.push({ email: r.email, role: r.role });
  return map;
}

async function describe(db: Executor, id: string): Promise<ProjectSummary> {
  const p = await requireProject(db, id);
  return { id: p.id, organization_id: p.organization_id, name: p.name, date_created: p.date_created.toISOString(), members: (await membersOf(db, [p.id])).get(p.id) ?? [] };
}

export async function createProject(db: Executor, input: { organizationId: string; name: string; id?: string }): Promise<ProjectSummary> {
  const org = await requireOrganization(db, input.organizationId);
  const name = requireName(input.name, 'project');
  if (input.id !== undefined && !isUuid(input.id)) throw new ProvisioningError(`--id must be a UUID, got "${input.id}"`);
  const id = (input.id ?? randomUUID()).toLowerCase();
  if (await findProjectRecord(db, id)) throw new ProvisioningError(`a project with id ${id} already exists`);
  try {
    await upsertProject(db, { id, organization_id: org.id, name });
  } catch (err) {
    if (err instanceof ProjectConflictError) throw new ProvisioningError(err.message);
    throw err;
  }
  return describe(db, id);
}

export async function listProjects(db: Executor, organizationId: string): Promise<ProjectSummary[]> {
  const org = await requireOrganization(db, organizationId);
  const projects = await listProjectRecords(db, org.id);
  const members = await membersOf(db, projects.map((p) => p.id));
  return projects.map((p) => ({ id: p.id, organization_id: p.organization_id, name: p.name, date_created: p.date_created.toISOString(), members: members.get(p.id) ?? [] }));
}

/** Adds a member, or changes the role of one. */
export async function addProjectMember(db: Executor, input: { projectId: string; email: string; role: string }): Promise<ProjectSummary> {
  if (!(PROJECT_ROLES as readonly string[]).includes(input.role)) throw new ProvisioningError(`role must be one of ${PROJECT_ROLES.join(', ')}, got "${input.role}"`);
  const project = await requireProject(db, input.projectId);
  const user = await requireUserInOrganization(db, project.organization_id, input.email);
  await setProjectMember(db, project.id, user.id, input.role as ProjectRole);
  return describe(db, project.id);
}

export async function removeMember(db: Executor, input: { projectId: string; email: string }): Promise<ProjectSummary> {
  const project = await requireProject(db, input.projectId);
  const user = await requireUserInOrganization(db, project.organization_id, input.email);
  if (!(await removeProjectMember(db, project.id, user.id))) throw new ProvisioningError(`${user.email} is not a member of project ${project.id}`);
  return describe(db, project.id);
}
