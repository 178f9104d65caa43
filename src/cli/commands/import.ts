/**
 * `certdesk import --org ORG_ID FILE.ndjson`: streams orders into one organization, all or nothing
 * (docs/import.md). Progress goes to stderr: a bar on a terminal, a plain line every few seconds otherwise.
 */
import fs from 'node:fs';
import type { Readable } from 'node:stream';
import cliProgress from 'cli-progress';
import type { Command } from 'commander';
import { importOrders, type ImportProgress } from '../../domain/order-import/order-import.js';
import { configFrom, output, UsageError, withDatabase } from '../context.js';

interface Reporter {
  update(progress: ImportProgress): void;
  stop(): void;
}

const rate = (p: ImportProgress) => Math.round(p.orders / Math.max(p.elapsedSeconds, 0.001));

/** A bar against the file size on a terminal; periodic lines when stderr is a file or a pipe. */
function progressReporter(totalBytes: number | null): Reporter {
  if (process.stderr.isTTY && totalBytes !== null) {
    const bar = new cliProgress.SingleBar(
      { stream: process.stderr, format: 'importing [{bar}] {percentage}% | {orders} orders | {rate}/s | {eta_formatted} left', hideCursor: true },
      cliProgress.Presets.shades_classic,
    );
    bar.start(totalBytes, 0, { orders: 0, rate: 0 });
    return {
      update: (p) => bar.update(p.bytes, { orders: p.orders.toLocaleString('en-US'), rate: rate(p).toLocaleString('en-US') }),
      stop: () => bar.stop(),
    };
  }
  let last = 0;
  return {
    update(p) {
      if (p.elapsedSeconds - last < 2) return;
      last = p.elapsedSeconds;
      process.stderr.write(`imported ${p.orders} orders (${rate(p).toLocaleString('en-US')}/s)\n`);
    },
    stop: () => undefined,
  };
}

/** Opens FILE (or stdin for `-`), failing with one clear line when it cannot be read. */
async function openInput(file: string): Promise<{ input: Readable; size: number | null }> {
  if (file === '-') return { input: process.stdin, size: null };
  let stat: fs.Stats;
  try {
    stat = await fs.promises.stat(file);
  } catch (err) {
    throw new UsageError(`cannot read ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
  if (!stat.isFile()) throw new UsageError(`${file} is not a file`);
  return { input: fs.createReadStream(file, { highWaterMark: 256 * 1024 }), size: stat.size };
}

export function registerImport(program: Command): void {
  program
    .command('import')
    .description('import orders from an NDJSON file (one order per line, the seed order shape) into an organization, all or nothing')
    .argument('<file>', 'NDJSON file, or - for standard input')
    .requiredOption('--org <id>', 'organization id (UUID)')
    .option('--json', 'print the result as JSON')
    .addHelpText('after', '\nExample:\n  certdesk import --org 0a0a0a0a-0000-4000-8000-00000000000a orders.ndjson\n  zcat orders.ndjson.gz | certdesk import --org <id> -')
    .action(async (file: string, opts: { org: string; json?: boolean }, command: Command) => {
      const config = configFrom(command);
      const { input, size } = await openInput(file);
      const reporter = progressReporter(size);
      let report;
      try {
        report = await withDatabase(config, (handle) => importOrders(handle, { organizationId: opts.org, input, onProgress: (p) => reporter.update(p), progressEvery: 5_000 }));
      } finally {
        reporter.stop();
        if (input !== process.stdin) input.destroy();
      }
      output(Boolean(opts.json), report, () =>
        `imported ${report.orders} orders into organization ${report.organizationId} in ${report.seconds.toFixed(1)} s (${report.ordersPerSecond.toLocaleString('en-US')} orders/s)`,
      );
    });
}
