/** `certdesk client create|list|revoke`: API clients (client credentials). The secret is printed once. */
import type { Command } from 'commander';
import { createClient, listClients, revokeClient } from '../../domain/api-clients/client-admin.js';
import { ALL_SCOPES } from '../../contract/schemas.js';
import { configFrom, output, withDatabase } from '../context.js';

export function registerClient(program: Command): void {
  const client = program.command('client').description('create, list and revoke API clients');
  client
    .command('create')
    .description('create an API client acting as a user; prints client_id and the secret (shown only this once)')
    .requiredOption('--org <id>', 'organization id')
    .requiredOption('--user-email <email>', 'the user the client acts as (its visibility and roles apply)')
    .option('--name <name>', 'a name to recognize the client by')
    .option('--scope <scope...>', `allowed scopes (${ALL_SCOPES.join(', ')}); default read only`)
    .option('--json', 'print the result as JSON')
    .addHelpText('after', `\nExample:\n  certdesk client create --org <id> --user-email ada@example.com --name CI --scope ${ALL_SCOPES[0]}`)
    .action(async (opts: { org: string; userEmail: string; name?: string; scope?: string[]; json?: boolean }, command: Command) => {
      const created = await withDatabase(configFrom(command), (h) =>
        h.db.transaction().execute((trx) => createClient(trx, { organizationId: opts.org, userEmail: opts.userEmail, name: opts.name, scopes: opts.scope })),
      );
      output(Boolean(opts.json), created, () =>
        [
          `client_id:     ${created.client_id}`,
          `client_secret: ${created.client_secret}`,
          `scopes:        ${created.scopes.join(' ')}`,
          'Store the secret now: it is shown only once (certdesk keeps a hash).',
        ].join('\n'),
      );
    });
  client
    .command('list')
    .description('list the API clients of an organization (never their secrets)')
    .requiredOption('--org <id>', 'organization id')
    .option('--json', 'print the result as JSON')
    .action(async (opts: { org: string; json?: boolean }, command: Command) => {
      const clients = await withDatabase(configFrom(command), (h) => listClients(h.db, opts.org));
      output(Boolean(opts.json), clients, () =>
        clients.length
          ? clients.map((c) => `${c.client_id}  ${c.user_email}  ${c.scopes.join(' ')}  ${c.revoked_at ? `revoked ${c.revoked_at}` : 'active'}  ${c.name}`).join('\n')
          : 'no API clients',
      );
    });
  client
    .command('revoke')
    .description('revoke an API client: its tokens stop working within seconds')
    .argument('<client_id>', 'the client to revoke')
    .option('--json', 'print the result as JSON')
    .action(async (clientId: string, opts: { json?: boolean }, command: Command) => {
      const revoked = await withDatabase(configFrom(command), (h) => h.db.transaction().execute((trx) => revokeClient(trx, clientId)));
      output(Boolean(opts.json), revoked, () => `revoked ${revoked.client_id} at ${revoked.revoked_at}`);
    });
  client.commands.forEach((c) => c.exitOverride());
}
