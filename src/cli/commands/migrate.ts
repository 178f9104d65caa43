import type { Command } from 'commander';
import { configFrom, openConfiguredDatabase, output } from '../context.js';
import { migrate } from '../../storage/migrate.js';

export function registerMigrate(program: Command): void {
  program
    .command('migrate')
    .description('apply pending database migrations (serve also does this at start)')
    .option('--json', 'print the result as JSON')
    .action(async (opts: { json?: boolean }, command: Command) => {
      const config = configFrom(command);
      const handle = await openConfiguredDatabase(config);
      try {
        const report = await migrate(handle);
        output(Boolean(opts.json), { database: handle.description, ...report }, () =>
          report.applied.length
            ? `applied ${report.applied.join(', ')} to ${handle.description}`
            : `${handle.description} is up to date (${report.alreadyApplied.length} migrations)`,
        );
      } finally {
        await handle.close();
      }
    });
}
