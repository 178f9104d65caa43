import type { Command } from 'commander';
import { createServices } from '../../app/services.js';
import { migrate } from '../../storage/migrate.js';
import { configFrom, openConfiguredDatabase } from '../context.js';
import { limitHeapGrowth } from '../../app/heap-growth.js';

export function registerWorker(program: Command): void {
  program
    .command('worker')
    .description('run background jobs (order analysis, cleanup) without serving HTTP; any number may run beside `serve`')
    .action(async (_opts: unknown, command: Command) => {
      limitHeapGrowth();
      const config = configFrom(command);
      const database = await openConfiguredDatabase(config);
      try {
        await migrate(database);
      } catch (err) {
        await database.close();
        throw err;
      }
      const services = await createServices({ config, database }).catch(async (err: unknown) => {
        await database.close();
        throw err;
      });
      const { jobs } = services;
      jobs.start();
      // A worker may lead the transparency log's sequencing too (one process leads: a lease).
      services.transparencyLog.sequencer.start();
      process.stdout.write(`certdesk worker ${jobs.worker.id} running ${Math.max(1, config.workerConcurrency)} jobs at once (${database.description})\n`);
      const shutdown = async () => {
        await services.close();
        await database.close();
        process.exit(0);
      };
      process.once('SIGINT', () => void shutdown());
      process.once('SIGTERM', () => void shutdown());
    });
}
