/**
 * `certdesk stats recount [--dry-run] [--json]`: recounts orders per organization, scope and state, reports
 * where order_counters drifted from the real count, and repairs them (unless --dry-run), in one transaction.
 * Drift is a finding, not a failure: the command exits 0 either way.
 */
import type { Command } from 'commander';
import { recountOrderCounters, type CounterDrift } from '../../domain/orders/order.repository.js';
import { configFrom, output, withDatabase } from '../context.js';

export interface RecountReport {
  dryRun: boolean;
  /** Counter rows whose stored value differed from the recount. */
  drift: CounterDrift[];
  repaired: boolean;
}

export function registerStats(program: Command): void {
  const stats = program.command('stats').description('order statistics maintenance');
  stats
    .command('recount')
    .description('recount orders per scope and state, report drift of the stored counters and repair it')
    .option('--dry-run', 'report drift without repairing it')
    .option('--json', 'print the result as JSON')
    .action(async (opts: { dryRun?: boolean; json?: boolean }, command: Command) => {
      const config = configFrom(command);
      const dryRun = Boolean(opts.dryRun);
      const drift = await withDatabase(config, (handle) => handle.db.transaction().execute((trx) => recountOrderCounters(trx, dryRun)));
      const report: RecountReport = { dryRun, drift, repaired: !dryRun && drift.length > 0 };
      output(Boolean(opts.json), report, () => formatReport(report));
    });
}

function formatReport(report: RecountReport): string {
  if (report.drift.length === 0) return 'order counters are exact: no drift';
  const lines = report.drift.map((d) => `  ${d.organization_id} ${d.scope_key} ${d.order_state}: stored ${d.stored}, actual ${d.actual}`);
  const verdict = report.dryRun ? `${report.drift.length} counters drifted (dry run: nothing repaired)` : `${report.drift.length} counters drifted and were repaired`;
  return [verdict, ...lines].join('\n');
}
