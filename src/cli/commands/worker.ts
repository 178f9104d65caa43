import type { Command } from 'commander';
import { systemClock } from '../../domain/time/clock.js';
import { JobRuntime } from '../../jobs/job-runtime.js';
import { detectionServiceFrom } from '../../integrations/detection-service/index.js';
import { migrate } from '../../storage/migrate.js';
import { openObjectStorage } from '../../storage/object-storage/index.js';
import { configFrom, openConfiguredDatabase } from '../context.js';

export function registerWorker(program: Command): void {
  program
    .command('worker')
    .description('run background jobs (order analysis, cleanup) without serving HTTP; any number may run beside `serve`')
    .action(async (_opts: unknown, command: Command) => {
      const config = configFrom(command);
      const database = await openConfiguredDatabase(config);
      try {
        await migrate(database);
      } catch (err) {
        await database.close();
        throw err;
      }
      const jobs = new JobRuntime({
        db: database.db,
        clock: systemClock,
        storage: openObjectStorage(config),
        detection: detectionServiceFrom(config),
        concurrency: Math.max(1, config.workerConcurrency),
        onError: (err) => process.stderr.write(`certdesk worker: ${(err as Error).message}\n`),
      });
      jobs.start();
      process.stdout.write(`certdesk worker ${jobs.worker.id} running ${Math.max(1, config.workerConcurrency)} jobs at once (${database.description})\n`);
      const shutdown = async () => {
        await jobs.stop();
        await database.close();
        process.exit(0);
      };
      process.once('SIGINT', () => void shutdown());
      process.once('SIGTERM', () => void shutdown());
    });
}
