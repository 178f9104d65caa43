import type { Command } from 'commander';
import { loadSeed, readSeedFile, SeedError } from '../../domain/seed/seed.js';
import { openObjectStorage } from '../../storage/object-storage/index.js';
import { configFrom, output, withDatabase } from '../context.js';

export function registerSeed(program: Command): void {
  program
    .command('seed')
    .description('load organizations, users, projects, API clients, orders and objects from a JSON seed file (all or nothing; loading it again changes nothing)')
    .argument('<file>', 'seed file (JSON; format and a complete example: docs/seed-format.md)')
    .addHelpText('after', '\nThe seed format, every field and its default, with a complete example: docs/seed-format.md\nExample:\n  certdesk seed docs/examples/seed-small.json')
    .option('--json', 'print the result as JSON')
    .action(async (file: string, opts: { json?: boolean }, command: Command) => {
      const config = configFrom(command);
      const document = await readSeedFile(file);
      const report = await withDatabase(config, (handle) => loadSeed(handle.db, openObjectStorage(config), document)).catch((err: unknown) => {
        // Name the file: an operator may be loading several.
        if (err instanceof SeedError) throw new SeedError({ path: '', message: `${file}: ${err.message}` });
        throw err;
      });
      output(Boolean(opts.json), report, () =>
        `seeded ${file}: ${report.organizations} organizations, ${report.users} users, ${report.projects} projects, ` +
        `${report.apiClients} API clients, ${report.orders} orders, ${report.objects} objects (${report.changed} records changed)`,
      );
    });
}
