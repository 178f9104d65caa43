/**
 * `certdesk certificates show ID` and `certdesk certificates revoke ID --reason TEXT`: operator commands
 * for certificates (docs/certificates.md). Revocation is final and shows at once on the API, the verify
 * page and the badge (their answers are revalidated on every use); the order keeps its state.
 */
import type { Command } from 'commander';
import {
  findPublicCertificate,
  revokeCertificateNow,
  toCertificateObject,
  type CertificateRow,
} from '../../domain/certificates/index.js';
import { ApiError } from '../../domain/errors.js';
import { systemClock } from '../../domain/time/clock.js';
import { translate } from '../../i18n/index.js';
import { configFrom, output, UsageError, withDatabase } from '../context.js';

/** Who revokes from the command line (recorded as `revoked_by`). */
const OPERATOR = { kind: 'system', component: 'operator' } as const;

/** The API's object plus what an operator also needs (organization, signing key, who issued and revoked). */
function describe(row: CertificateRow) {
  return { ...toCertificateObject(row), organization_id: row.organization_id, kid: row.kid, issued_by: row.issued_by, revoked_by: row.revoked_by };
}

function text(row: CertificateRow): string {
  const c = describe(row);
  return [
    `certificate ${c.certificate_id}  ${c.status.toUpperCase()}`,
    `order        ${c.order_id} (organization ${c.organization_id})`,
    `asset        ${c.asset_name}  sha256 ${c.asset_sha256}`,
    `issued       ${c.issued_at} by ${c.issued_by}, key ${c.kid}`,
    ...(c.revoked_at ? [`revoked      ${c.revoked_at} by ${c.revoked_by}: ${c.revocation_reason}`] : []),
    `verify       ${c.verify_url}`,
  ].join('\n');
}

/** Domain errors carry a message key: shown as the English message, one line. */
function oneLine(err: unknown): never {
  if (err instanceof ApiError) throw new UsageError(translate('en', err.messageKey, err.vars));
  throw err;
}

export function registerCertificates(program: Command): void {
  const certificates = program.command('certificates').description('certificates of Human Certified orders: show, revoke');

  certificates
    .command('show')
    .description('show a certificate: status, order, asset digest, signing key, revocation')
    .argument('<certificate_id>', 'the certificate id (UUID)')
    .option('--json', 'print the result as JSON')
    .action(async (id: string, opts: { json?: boolean }, command: Command) => {
      const config = configFrom(command);
      const row = await withDatabase(config, (handle) => findPublicCertificate(handle.db, id));
      if (!row) throw new UsageError(`no certificate ${id}`);
      output(Boolean(opts.json), describe(row), () => text(row));
    });

  certificates
    .command('revoke')
    .description('revoke a certificate, for good, with a reason (the order keeps its state)')
    .argument('<certificate_id>', 'the certificate id (UUID)')
    .requiredOption('--reason <text>', 'why (shown on the verify page and in the API)')
    .option('--json', 'print the result as JSON')
    .action(async (id: string, opts: { reason: string; json?: boolean }, command: Command) => {
      const config = configFrom(command);
      const row = await withDatabase(config, (handle) => revokeCertificateNow(handle.db, systemClock, id, opts.reason, OPERATOR)).catch(oneLine);
      output(Boolean(opts.json), describe(row), () => text(row));
    });
}
