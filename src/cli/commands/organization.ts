/** `certdesk org create|list`: organizations. */
import type { Command } from 'commander';
import { createOrganization, listOrganizations } from '../../domain/organizations/organization-admin.js';
import { configFrom, output, withDatabase } from '../context.js';

const view = (o: { id: string; name: string; created_at: Date }) => ({ id: o.id, name: o.name, created_at: o.created_at.toISOString() });

export function registerOrganization(program: Command): void {
  const org = program.command('org').description('create and list organizations');
  org
    .command('create')
    .description('create an organization')
    .requiredOption('--name <name>', 'organization name')
    .option('--id <uuid>', 'organization id (default: a new random UUID)')
    .option('--json', 'print the result as JSON')
    .addHelpText('after', '\nExample:\n  certdesk org create --name "Acme Studio"')
    .action(async (opts: { name: string; id?: string; json?: boolean }, command: Command) => {
      const created = await withDatabase(configFrom(command), (h) => h.db.transaction().execute((trx) => createOrganization(trx, opts)));
      output(Boolean(opts.json), view(created), () => `created organization ${created.id} (${created.name})`);
    });
  org
    .command('list')
    .description('list organizations')
    .option('--json', 'print the result as JSON')
    .action(async (opts: { json?: boolean }, command: Command) => {
      const orgs = (await withDatabase(configFrom(command), (h) => listOrganizations(h.db))).map(view);
      output(Boolean(opts.json), orgs, () => (orgs.length ? orgs.map((o) => `${o.id}  ${o.name}`).join('\n') : 'no organizations'));
    });
  org.commands.forEach((c) => c.exitOverride());
}
