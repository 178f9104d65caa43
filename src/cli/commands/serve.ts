import type { Command } from 'commander';
import { buildApp } from '../../http/app.js';
import { migrate } from '../../storage/migrate.js';
import { configFrom, openConfiguredDatabase, UsageError } from '../context.js';
import { buildDemoSeed, DEMO_PRIMARY } from '../../domain/demo/index.js';
import { loadSeed, type SeedReport } from '../../domain/provisioning/seed.js';
import { openObjectStorage } from '../../storage/object-storage/index.js';

/** What `serve --demo` prints once listening: where to go and which demo credentials to use. */
function demoBanner(baseUrl: string, report: SeedReport): string {
  const { client_id: id, client_secret: secret } = DEMO_PRIMARY.client;
  const line = '!'.repeat(78);
  return [
    line,
    '!! DEMO MODE: the credentials below are public and for local use only.',
    '!! Never expose this server or use this data directory for anything real.',
    line,
    `Demo data: ${report.organizations} organizations, ${report.users} users, ${report.projects} projects, ${report.orders} orders (${report.changed ? `${report.changed} records written` : 'already loaded, nothing changed'})`,
    '',
    `Web application:  ${baseUrl}/`,
    `  sign in as      ${DEMO_PRIMARY.admin.email}  password ${DEMO_PRIMARY.admin.password}  (${DEMO_PRIMARY.name} administrator)`,
    `API client:       client_id ${id}`,
    `                  client_secret ${secret}`,
    `Organization id:  ${DEMO_PRIMARY.id}`,
    '',
    'Try the API:',
    `  TOKEN=$(curl -s -u ${id}:${secret} -d grant_type=client_credentials ${baseUrl}/oauth2/token | sed -E 's/.*"access_token":"([^"]+)".*/\\1/') && curl -s -H "Authorization: Bearer $TOKEN" "${baseUrl}/v1/orders?project_id=All%20Projects&limit=5"`,
    line,
  ].join('\n');
}

export function registerServe(program: Command): void {
  program
    .command('serve')
    .description('serve the API (/v1), the token service (/oauth2/token) and the web application on one port')
    .option('--demo', 'load the demo organizations, users, API clients and orders first (idempotent) and print demo credentials; local use only')
    .action(async (opts: { demo?: boolean }, command: Command) => {
      const config = configFrom(command);
      if (opts.demo && config.env === 'production') throw new UsageError('serve --demo loads public demo credentials and is refused when CERTDESK_ENV=production');
      const database = await openConfiguredDatabase(config);
      let demoReport: SeedReport | null = null;
      try {
        await migrate(database);
        if (opts.demo) demoReport = await loadSeed(database.db, openObjectStorage(config), buildDemoSeed());
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
      if (demoReport) process.stdout.write(`${demoBanner(config.port === 0 ? address.replace('127.0.0.1', 'localhost') : config.publicBaseUrl, demoReport)}\n`);
    });
}
