/**
 * `certdesk user add|list`. A password is never taken from argv (process listings, shell history): it is
 * read from a terminal prompt with echo off, or from standard input with --password-stdin.
 */
import type { Command } from 'commander';
import { addUser, listOrganizationUsers } from '../../domain/users/user-admin.js';
import { configFrom, output, UsageError, withDatabase } from '../context.js';

/** Reads all of stdin (a password piped in); one trailing newline is not part of the password. */
async function readStdinPassword(): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of process.stdin) {
    size += (chunk as Buffer).length;
    if (size > 4096) throw new UsageError('the password on standard input is longer than 4096 bytes');
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8').replace(/\r?\n$/, '');
}

/** Prompts on the terminal without echo; Ctrl-C aborts. */
function promptHidden(question: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const stdin = process.stdin;
    process.stderr.write(question);
    stdin.setRawMode(true);
    stdin.resume();
    stdin.setEncoding('utf8');
    let value = '';
    const finish = (err: Error | null) => {
      stdin.off('data', onData);
      stdin.setRawMode(false);
      stdin.pause();
      process.stderr.write('\n');
      if (err) reject(err);
      else resolve(value);
    };
    const onData = (text: string) => {
      for (const ch of text) {
        if (ch === '\r' || ch === '\n' || ch === '\u0004') return finish(null);
        if (ch === '\u0003') return finish(new UsageError('cancelled'));
        if (ch === '\u007f' || ch === '\b') value = value.slice(0, -1);
        else value += ch;
      }
    };
    stdin.on('data', onData);
  });
}

async function readPassword(fromStdin: boolean): Promise<string | null> {
  if (fromStdin) return readStdinPassword();
  // No terminal and no --password-stdin: a user without web sign-in (API clients only).
  if (!process.stdin.isTTY) return null;
  const first = await promptHidden('Web password (empty for none): ');
  if (first === '') return null;
  const again = await promptHidden('Repeat the password: ');
  if (again !== first) throw new UsageError('the passwords do not match');
  return first;
}

export function registerUser(program: Command): void {
  const user = program.command('user').description('add and list users of an organization');
  user
    .command('add')
    .description('add a user to an organization (password prompted on a terminal, or read with --password-stdin)')
    .requiredOption('--org <id>', 'organization id')
    .requiredOption('--email <email>', 'e-mail address (unique)')
    .requiredOption('--username <name>', 'username shown on orders')
    .option('--admin', 'make the user an organization administrator')
    .option('--password-stdin', 'read the web password from standard input (never pass it as an argument)')
    .option('--json', 'print the result as JSON')
    .addHelpText('after', '\nExamples:\n  certdesk user add --org <id> --email ada@example.com --username Ada --admin\n  printf %s "$PASSWORD" | certdesk user add --org <id> --email bo@example.com --username Bo --password-stdin')
    .action(async (opts: { org: string; email: string; username: string; admin?: boolean; passwordStdin?: boolean; json?: boolean }, command: Command) => {
      const config = configFrom(command);
      const password = await readPassword(Boolean(opts.passwordStdin));
      const created = await withDatabase(config, (h) =>
        h.db.transaction().execute((trx) => addUser(trx, { organizationId: opts.org, email: opts.email, username: opts.username, isAdmin: Boolean(opts.admin), password })),
      );
      output(Boolean(opts.json), created, () =>
        `added ${created.is_admin ? 'administrator' : 'user'} ${created.email} (${created.id}) to organization ${created.organization_id}${created.has_password ? '' : ', no web password'}`,
      );
    });
  user
    .command('list')
    .description('list the users of an organization')
    .requiredOption('--org <id>', 'organization id')
    .option('--json', 'print the result as JSON')
    .action(async (opts: { org: string; json?: boolean }, command: Command) => {
      const users = await withDatabase(configFrom(command), (h) => listOrganizationUsers(h.db, opts.org));
      output(Boolean(opts.json), users, () =>
        users.length ? users.map((u) => `${u.email}  ${u.username}${u.is_admin ? '  (admin)' : ''}${u.has_password ? '' : '  (no web password)'}`).join('\n') : 'no users',
      );
    });
  user.commands.forEach((c) => c.exitOverride());
}
