/**
 * `certdesk demo-data`: writes the deterministic demo seed (`--seed-file`) or N generated orders as NDJSON
 * (`--ndjson N --org ID`) for the import and its benchmark. Touches no database.
 */
import fs from 'node:fs';
import { finished } from 'node:stream/promises';
import type { Writable } from 'node:stream';
import type { Command } from 'commander';
import { buildDemoSeed, writeNdjsonOrders } from '../../demo/index.js';
import { isUuid } from '../../domain/uuid.js';
import { UsageError } from '../context.js';

interface DemoDataOptions {
  seedFile?: string;
  ndjson?: string;
  org?: string;
  seed: string;
  project?: string[];
  prefix?: string;
  out?: string;
}

function positiveInteger(raw: string, flag: string, min: number): number {
  if (!/^\d+$/.test(raw) || !Number.isSafeInteger(Number(raw)) || Number(raw) < min) throw new UsageError(`${flag} must be an integer of at least ${min}, got "${raw}"`);
  return Number(raw);
}

async function writeTo(file: string | undefined, fn: (out: Writable) => Promise<void>): Promise<void> {
  if (!file || file === '-') {
    await fn(process.stdout);
    return;
  }
  const out = fs.createWriteStream(file);
  const opened = new Promise<void>((resolve, reject) => {
    out.once('open', () => resolve());
    out.once('error', (err: NodeJS.ErrnoException) => reject(new UsageError(`cannot write ${file}: ${err.code ?? err.message}`)));
  });
  await opened;
  await fn(out);
  out.end();
  await finished(out);
}

export function registerDemoData(program: Command): void {
  program
    .command('demo-data')
    .description('write deterministic demo data: the demo seed document, or generated orders as NDJSON (demo credentials are for local use only)')
    .option('--seed-file <file>', 'write the demo seed document (JSON, for `certdesk seed`) to this file (- for stdout)')
    .option('--ndjson <count>', 'write this many generated orders as NDJSON (for `certdesk import`)')
    .option('--org <id>', 'with --ndjson: the organization the orders are for (its demo projects are used when it is a demo organization)')
    .option('--project <id...>', 'with --ndjson: project ids to spread orders over (default: the demo organization\'s projects; some orders are always personal)')
    .option('--seed <number>', 'with --ndjson: seed of the generator; the same seed gives the same bytes', '1')
    .option('--prefix <text>', 'with --ndjson: order id prefix (default gen<seed>)')
    .option('--out <file>', 'with --ndjson: output file (default: standard output)')
    .addHelpText('after', '\nExamples:\n  certdesk demo-data --seed-file demo-seed.json\n  certdesk demo-data --ndjson 1000000 --org ac3e0000-0000-4000-8000-000000000001 --out orders.ndjson')
    .action(async (opts: DemoDataOptions) => {
      if (Boolean(opts.seedFile) === Boolean(opts.ndjson)) throw new UsageError('give exactly one of --seed-file FILE or --ndjson COUNT');
      if (opts.seedFile) {
        const seed = buildDemoSeed();
        const text = `${JSON.stringify(seed, null, 2)}\n`;
        await writeTo(opts.seedFile, async (out) => {
          out.write(text);
        });
        // On stdout the document itself is the output; the summary goes to stderr so the JSON stays clean.
        const count = (key: 'users' | 'projects' | 'api_clients' | 'orders') => seed.organizations.reduce((n, o) => n + (o[key]?.length ?? 0), 0);
        const summary =
          `wrote ${opts.seedFile === '-' ? 'the demo seed to standard output' : opts.seedFile}: ${seed.organizations.length} organizations, ` +
          `${count('users')} users, ${count('projects')} projects, ${count('api_clients')} API clients, ${count('orders')} orders, ` +
          `${seed.objects?.length ?? 0} objects (${Buffer.byteLength(text)} bytes); load it with: certdesk seed ${opts.seedFile === '-' ? 'FILE' : opts.seedFile}\n`;
        (opts.seedFile === '-' ? process.stderr : process.stdout).write(summary);
        return;
      }
      const count = positiveInteger(opts.ndjson!, '--ndjson', 1);
      if (!opts.org) throw new UsageError('--ndjson needs --org ORG_ID');
      if (!isUuid(opts.org)) throw new UsageError(`--org must be a UUID, got "${opts.org}"`);
      for (const p of opts.project ?? []) if (!isUuid(p)) throw new UsageError(`--project must be a UUID, got "${p}"`);
      const seed = positiveInteger(opts.seed, '--seed', 0);
      if (opts.prefix !== undefined && !/^[\x21-\x7E]{1,100}$/.test(opts.prefix)) throw new UsageError('--prefix must be printable ASCII without spaces');
      await writeTo(opts.out, (out) =>
        writeNdjsonOrders(out, { organizationId: opts.org!, count, seed, projectIds: opts.project?.map((p) => p.toLowerCase()), prefix: opts.prefix }),
      );
    });
}
