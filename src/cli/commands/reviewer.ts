/**
 * `certdesk reviewer grant EMAIL | revoke EMAIL | list`: the deployment-wide reviewer capability
 * (docs/review.md). Revoking also releases the reviewer's claims.
 */
import type { Command } from 'commander';
import { grantReviewer, listReviewers, revokeReviewer } from '../../domain/review/reviewer-admin.js';
import { configFrom, output, withDatabase } from '../context.js';

export function registerReviewer(program: Command): void {
  const reviewer = program.command('reviewer').description('grant, revoke and list the reviewer capability (deployment-wide)');
  reviewer
    .command('grant')
    .description('let a user review and decide orders of every organization but their own')
    .argument('<email>', 'e-mail of an existing user')
    .option('--json', 'print the result as JSON')
    .addHelpText('after', '\nExample:\n  certdesk reviewer grant rita@certifier.example')
    .action(async (email: string, opts: { json?: boolean }, command: Command) => {
      const result = await withDatabase(configFrom(command), (h) => grantReviewer(h.db, email));
      output(Boolean(opts.json), { ...result, reviewer: true }, () => (result.changed ? `${result.email} is now a reviewer` : `${result.email} was already a reviewer`));
    });
  reviewer
    .command('revoke')
    .description('take the reviewer capability away (their claims are released)')
    .argument('<email>', 'e-mail of an existing user')
    .option('--json', 'print the result as JSON')
    .action(async (email: string, opts: { json?: boolean }, command: Command) => {
      const result = await withDatabase(configFrom(command), (h) => revokeReviewer(h.db, email));
      output(Boolean(opts.json), { ...result, reviewer: false }, () => (result.changed ? `${result.email} is no longer a reviewer` : `${result.email} was not a reviewer`));
    });
  reviewer
    .command('list')
    .description('list the reviewers')
    .option('--json', 'print the result as JSON')
    .action(async (opts: { json?: boolean }, command: Command) => {
      const reviewers = await withDatabase(configFrom(command), (h) => listReviewers(h.db));
      output(Boolean(opts.json), reviewers, () =>
        reviewers.length ? reviewers.map((r) => `${r.email}  ${r.username}  (${r.organization_name}, ${r.organization_id})  since ${r.granted_at}`).join('\n') : 'no reviewers',
      );
    });
  reviewer.commands.forEach((c) => c.exitOverride());
}
