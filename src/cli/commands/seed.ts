import type { Command } from 'commander';
import { loadSeed, readSeedFile } from '../../domain/provisioning/seed.js';
import { openObjectStorage } from '../../storage/object-storage/index.js';
import { configFrom, output, withDatabase } from '../context.js';

export function registerSeed(program: Command): void {
  program
    .command('seed')
    .description('load organizations, users, projects, API clients, orders and objects from a JSON seed file (all or nothing; loading it again changes nothing)')
    .argument('<file>', 'seed file (format: docs/seed-format.md)')
    .option('--json', 'print the result as JSON')
    .action(async (file: string, opts: { json?: boolean }, command: Command) => {
      const config = configFrom(command);
      const document = await readSeedFile(file);
      const report = await withDatabase(config, (handle) => loadSeed(handle.db, openObjectStorage(config), document));
      output(Boolean(opts.json), report, () =>
        `seeded ${file}: ${report.organizations} organizations, ${report.users} users, ${report.projects} projects, ` +
        `${report.apiClients} API clients, ${report.orders} orders, ${report.objects} objects (${report.changed} records changed)`,
      );
    });
}
