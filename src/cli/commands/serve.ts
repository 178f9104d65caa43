/**
 * `certdesk serve`. The application (services, HTTP app, demo data) is imported only by the process that
 * serves: the primary of `serve --workers N` migrates, forks and supervises, and stays small (it held the
 * whole application, ~90 MB of resident memory, while serving nothing).
 */
import type { Command } from 'commander';
import { migrate } from '../../storage/migrate.js';
import { configFrom, openConfiguredDatabase, UsageError } from '../context.js';
import type { SeedReport } from '../../domain/seed/seed.js';
import { isClusterWorker, reportListening, runClusterPrimary, workerCount } from '../../cluster/serve-cluster.js';
import { limitHeapGrowth, limitYoungGeneration, releaseYoungGeneration } from '../../app/heap-growth.js';
import type { Services } from '../../app/services.js';
import { StartupUndo } from '../startup-undo.js';

/** What `serve --demo` prints once listening: where to go and which demo credentials to use. */
async function demoBanner(baseUrl: string, report: SeedReport): Promise<string> {
  const { DEMO_CERTIFIER, DEMO_PRIMARY } = await import('../../demo/index.js');
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
    `  review as       ${DEMO_CERTIFIER.reviewer.email}  password ${DEMO_CERTIFIER.reviewer.password}  (reviewer, ${DEMO_CERTIFIER.name}: ${baseUrl}/review)`,
    `API client:       client_id ${id}`,
    `                  client_secret ${secret}`,
    `Organization id:  ${DEMO_PRIMARY.id}`,
    '',
    'Try the API:',
    `  TOKEN=$(curl -s -u ${id}:${secret} -d grant_type=client_credentials ${baseUrl}/oauth2/token | sed -E 's/.*"access_token":"([^"]+)".*/\\1/') && curl -s -H "Authorization: Bearer $TOKEN" "${baseUrl}/v1/orders?project_id=All%20Projects&limit=5"`,
    line,
  ].join('\n');
}

function parseWorkers(value: string): number {
  if (!/^[1-9]\d{0,2}$/.test(value)) throw new UsageError(`--workers must be a whole number from 1 to 999, got "${value}"`);
  return Number(value);
}

export function registerServe(program: Command): void {
  program
    .command('serve')
    .description('serve the API (/v1), the token service (/oauth2/token) and the web application on one port')
    .option('--demo', 'load the demo organizations, users, API clients and orders first (idempotent) and print demo credentials; local use only')
    .option('--workers <n>', 'worker processes sharing the port (default: the number of CPUs; always 1 with the embedded database)', parseWorkers)
    .action(async (opts: { demo?: boolean; workers?: number }, command: Command) => {
      limitHeapGrowth();
      // Small while starting, free to grow once serving (heap-growth.ts); a worker's maximum is on its command line.
      const youngLimited = limitYoungGeneration();
      const config = configFrom(command);
      if (opts.demo && config.env === 'production') throw new UsageError('serve --demo loads public demo credentials and is refused when CERTDESK_ENV=production');
      const worker = isClusterWorker();
      const { workers, notice } = worker ? { workers: 1, notice: null } : workerCount(opts.workers, config.databaseUrl === null);
      if (notice) process.stderr.write(`${notice}\n`);
      const database = await openConfiguredDatabase(config, 'serve');
      let demoReport: SeedReport | null = null;
      try {
        // In a cluster the primary migrates and seeds once, before any worker starts.
        if (!worker) await migrate(database);
        if (opts.demo && !worker) {
          const [{ buildDemoSeed, DEMO_CERTIFIER, DEMO_ORGANIZATIONS, useDemoPreviewsAsAssets }, { grantReviewer }, { loadSeed }, { openObjectStorage }] = await Promise.all([
            import('../../demo/index.js'),
            import('../../domain/review/reviewer-admin.js'),
            import('../../domain/seed/seed.js'),
            import('../../storage/object-storage/index.js'),
          ]);
          demoReport = await loadSeed(database.db, openObjectStorage(config), buildDemoSeed());
          // The demo reviewer reviews Acme's and Northwind's orders (idempotent: granted twice changes nothing).
          await grantReviewer(database.db, DEMO_CERTIFIER.reviewer.email);
          // Every demo order in the review queue can be certified: its preview PNG stands for its uploaded file.
          await useDemoPreviewsAsAssets(database.db, DEMO_ORGANIZATIONS.map((o) => o.id));
        }
      } catch (err) {
        await database.close();
        throw err;
      }
      if (workers > 1) {
        const description = database.description;
        await database.close();
        if (!config.redisUrl) process.stderr.write(`${workers} workers without REDIS_URL: each worker keeps its own rate-limit counts\n`);
        const code = await runClusterPrimary({
          workers,
          log: (line) => process.stderr.write(`${line}\n`),
          drainTimeoutMs: config.shutdownGracePeriodSeconds * 1000 + 5000,
          onListening: (address) => {
            const banner = [`certdesk serving on ${address} (${description}, ${workers} workers)`];
            const demo = demoReport ? demoBanner(config.port === 0 ? address.replace('127.0.0.1', 'localhost') : config.publicBaseUrl, demoReport) : Promise.resolve(null);
            void demo.then((text) => process.stdout.write(`${[...banner, ...(text ? [text] : [])].join('\n')}\n`));
          },
        });
        process.exit(code);
      }
      // Every step that starts something leaves its undo here; a step that fails (the port is taken, a
      // plugin does not load) runs them newest first, so the failed start leaves nothing behind that keeps
      // the process alive (a LISTEN connection, the pool, a key refresh) and the error ends the command.
      const undo = new StartupUndo();
      undo.push(() => database.close());
      let address: string;
      let services: Services;
      try {
        const [{ createServices }, { buildServer }, { stopOnSignals }] = await Promise.all([
          import('../../app/services.js'),
          import('../../app/http-server.js'),
          import('../stop-on-signals.js'),
        ]);
        services = await createServices({ config, database });
        undo.push(() => services.close());
        const app = await buildServer(services);
        undo.push(() => app.close());
        const stopSignals = stopOnSignals({
          app,
          closeResources: async () => {
            await services.close();
            await database.close();
          },
          gracePeriodMs: config.shutdownGracePeriodSeconds * 1000,
          // A cluster worker stops on its primary's SIGTERM only: a terminal's Ctrl-C reaches the primary too,
          // and a second signal would cut the drain short.
          signals: worker ? ['SIGTERM'] : undefined,
        });
        undo.push(async () => stopSignals());
        if (worker) {
          const ignore = () => undefined;
          // A worker whose primary is gone (killed) drains and stops instead of serving on unsupervised.
          const orphaned = () => process.kill(process.pid, 'SIGTERM');
          process.on('SIGINT', ignore);
          process.once('disconnect', orphaned);
          undo.push(async () => {
            process.off('SIGINT', ignore);
            process.off('disconnect', orphaned);
          });
        }
        address = await app.listen({ host: config.host, port: config.port });
      } catch (err) {
        await undo.run();
        throw err;
      }
      releaseYoungGeneration(youngLimited);
      // Background jobs (analysis, cleanup) run here too unless WORKER_CONCURRENCY=0 leaves them to `certdesk worker`
      // (in a cluster, in every worker process: jobs are leased, so copies never run one job twice at once).
      // Only once the port is ours: a serve that cannot listen must not live on as a worker nobody counts.
      if (config.workerConcurrency > 0) services.jobs.start();
      // The transparency log's sequencer runs in every serving process, once the port is ours too; one of
      // them leads (a lease).
      services.transparencyLog.sequencer.start();
      if (worker) return reportListening(address, database.description);
      // One write, after listen: the banner stays one block however requests and log lines arrive.
      const banner = [`certdesk serving on ${address} (${database.description})`];
      if (demoReport) banner.push(await demoBanner(config.port === 0 ? address.replace('127.0.0.1', 'localhost') : config.publicBaseUrl, demoReport));
      process.stdout.write(`${banner.join('\n')}\n`);
    });
}
