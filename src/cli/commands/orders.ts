/**
 * `certdesk orders reanalyse ORDER_ID [--json]`: re-runs the analysis of an order that ended `Failed`
 * because of a transient cause (recorded as the operator-only move Failed → In Progress, docs/lifecycle.md).
 * `certdesk orders rerender [--all | ORDER_ID] [--json]`: re-renders stored order documents that differ
 * from what today's renderer makes of them (docs/orders.md, "Stored documents").
 */
import type { Command } from 'commander';
import { reanalyseOrder } from '../../domain/analysis/reanalyse.js';
import { systemClock } from '../../domain/time/clock.js';
import { rerenderOrders } from '../../domain/orders/order-documents.service.js';
import { configFrom, output, UsageError, withDatabase } from '../context.js';

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
  orders
    .command('rerender')
    .description("re-render stored order documents that differ from today's renderer (after a release that changed it, or to repair drift)")
    .argument('[order_id]', 'one order')
    .option('--all', 'every order, in batches of 500 (each its own short transaction: the table stays online)')
    .option('--json', 'print the result as JSON')
    .addHelpText('after', '\nWrites only documents that differ. Exit 1 for an unknown order, or when an order cannot be rendered (nothing of its batch is written).')
    .action(async (orderId: string | undefined, opts: { all?: boolean; json?: boolean }, command: Command) => {
      if ((orderId === undefined) === !opts.all) throw new UsageError('give either an ORDER_ID or --all');
      const result = await withDatabase(configFrom(command), (h) =>
        rerenderOrders(h.db, orderId === undefined ? { all: true } : { orderId }, (p) => {
          if (opts.all && !opts.json) process.stderr.write(`${p.checked} orders checked, ${p.rewritten} rewritten\n`);
        }),
      );
      if (orderId !== undefined && result.checked === 0) throw new UsageError(`order ${orderId} does not exist`);
      output(Boolean(opts.json), result, () => `${result.checked} order${result.checked === 1 ? '' : 's'} checked, ${result.rewritten} rewritten`);
    });
  orders.commands.forEach((c) => c.exitOverride());
}
