/**
 * `certdesk orders reanalyse ORDER_ID [--json]`: re-runs the analysis of an order that ended `Failed`
 * because of a transient cause (recorded as the operator-only move Failed → In Progress, docs/lifecycle.md).
 */
import type { Command } from 'commander';
import { reanalyseOrder } from '../../domain/analysis/reanalyse.js';
import { systemClock } from '../../domain/time/clock.js';
import { configFrom, output, withDatabase } from '../context.js';

export function registerOrders(program: Command): void {
  const orders = program.command('orders').description('operator actions on orders');
  orders
    .command('reanalyse')
    .description('re-analyse an order whose analysis failed for a transient cause (detection service, storage, network down)')
    .argument('<order_id>', 'the order')
    .option('--json', 'print the result as JSON')
    .addHelpText('after', '\nRefused (exit 1) for an order in any other state, or one that failed for a permanent cause (bad bytes).')
    .action(async (orderId: string, opts: { json?: boolean }, command: Command) => {
      const done = await withDatabase(configFrom(command), (h) => reanalyseOrder({ db: h.db, clock: systemClock }, orderId));
      output(Boolean(opts.json), done, () => `order ${done.order_id} is In Progress again; analysis job ${done.job_id} queued (${done.check} runs again)`);
    });
  orders.commands.forEach((c) => c.exitOverride());
}
