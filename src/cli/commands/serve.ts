import type { Command } from 'commander';
import { buildApp } from '../../http/app.js';
import { migrate } from '../../storage/migrate.js';
import { configFrom, openConfiguredDatabase } from '../context.js';

export function registerServe(program: Command): void {
  program
    .command('serve')
    .description('serve the API (/v1), the token service (/oauth2/token) and the web application on one port')
    .action(async (_opts: Record<string, unknown>, command: Command) => {
      const config = configFrom(command);
      const database = await openConfiguredDatabase(config);
      try {
        await migrate(database);
      } catch (err) {
        await database.close();
        throw err;
      }
      const app = await buildApp({ config, database });
      const shutdown = async (signal: string) => {
        app.log.info({ signal }, 'shutting down');
        await app.close();
        await database.close();
        process.exit(0);
      };
      process.once('SIGINT', () => void shutdown('SIGINT'));
      process.once('SIGTERM', () => void shutdown('SIGTERM'));
      const address = await app.listen({ host: config.host, port: config.port });
      process.stdout.write(`certdesk serving on ${address} (${database.description})\n`);
    });
}
