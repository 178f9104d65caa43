/** `certdesk project create|list|add-member|remove-member`. */
import type { Command } from 'commander';
import { addProjectMember, createProject, listProjects, removeMember, type ProjectSummary } from '../../domain/projects/project-admin.js';
import { configFrom, output, withDatabase } from '../context.js';

const describe = (p: ProjectSummary) =>
  `${p.id}  ${p.name}  (${p.members.length ? p.members.map((m) => `${m.email}: ${m.role}`).join(', ') : 'no members'})`;

export function registerProject(program: Command): void {
  const project = program.command('project').description('create and list projects, manage their members');
  project
    .command('create')
    .description('create a project in an organization')
    .requiredOption('--org <id>', 'organization id')
    .requiredOption('--name <name>', 'project name (unique in the organization)')
    .option('--id <uuid>', 'project id (default: a new random UUID)')
    .option('--json', 'print the result as JSON')
    .action(async (opts: { org: string; name: string; id?: string; json?: boolean }, command: Command) => {
      const created = await withDatabase(configFrom(command), (h) =>
        h.db.transaction().execute((trx) => createProject(trx, { organizationId: opts.org, name: opts.name, id: opts.id })),
      );
      output(Boolean(opts.json), created, () => `created project ${created.id} (${created.name}) in organization ${created.organization_id}`);
    });
  project
    .command('list')
    .description('list the projects of an organization with their members')
    .requiredOption('--org <id>', 'organization id')
    .option('--json', 'print the result as JSON')
    .action(async (opts: { org: string; json?: boolean }, command: Command) => {
      const projects = await withDatabase(configFrom(command), (h) => listProjects(h.db, opts.org));
      output(Boolean(opts.json), projects, () => (projects.length ? projects.map(describe).join('\n') : 'no projects'));
    });
  project
    .command('add-member')
    .description('add a user of the organization to a project, or change their role')
    .requiredOption('--project <id>', 'project id')
    .requiredOption('--email <email>', "the user's e-mail")
    .requiredOption('--role <role>', 'admin, editor or viewer')
    .option('--json', 'print the result as JSON')
    .action(async (opts: { project: string; email: string; role: string; json?: boolean }, command: Command) => {
      const updated = await withDatabase(configFrom(command), (h) =>
        h.db.transaction().execute((trx) => addProjectMember(trx, { projectId: opts.project, email: opts.email, role: opts.role })),
      );
      output(Boolean(opts.json), updated, () => describe(updated));
    });
  project
    .command('remove-member')
    .description('remove a user from a project')
    .requiredOption('--project <id>', 'project id')
    .requiredOption('--email <email>', "the user's e-mail")
    .option('--json', 'print the result as JSON')
    .action(async (opts: { project: string; email: string; json?: boolean }, command: Command) => {
      const updated = await withDatabase(configFrom(command), (h) =>
        h.db.transaction().execute((trx) => removeMember(trx, { projectId: opts.project, email: opts.email })),
      );
      output(Boolean(opts.json), updated, () => describe(updated));
    });
  project.commands.forEach((c) => c.exitOverride());
}
