/**
 * The certdesk command. Each subcommand lives in its own module under commands/ and registers itself here.
 * Any error ends as one line on stderr and a non-zero exit code.
 */
import { Command, CommanderError, Option } from 'commander';
import { ConfigError, settings } from '../config.js';
import { registerKeys } from './commands/keys.js';
import { registerCertificates } from './commands/certificates.js';
import { registerImport } from './commands/import.js';
import { registerDemoData } from './commands/demo-data.js';
import { registerOrganization } from './commands/organization.js';
import { registerUser } from './commands/user.js';
import { registerReviewer } from './commands/reviewer.js';
import { registerProject } from './commands/project.js';
import { registerClient } from './commands/client.js';
import { registerMigrate } from './commands/migrate.js';
import { registerSeed } from './commands/seed.js';
import { registerServe } from './commands/serve.js';
import { registerWorker } from './commands/worker.js';
import { registerStats } from './commands/stats.js';
import { registerJobs } from './commands/jobs.js';
import { registerOrders } from './commands/orders.js';
import { reportUnknownOptionsFirst } from './unknown-options-first.js';

export function buildProgram(): Command {
  const program = new Command('certdesk')
    .description('Certificate Orders and Projects Service: API, token service, web application and operator commands')
    // Usage errors are one line, like every other error: `certdesk: unknown option '--x' (see --help)`.
    .configureOutput({ outputError: (text, write) => write(`certdesk: ${text.replace(/^error: /, '').trim()} (see --help)\n`) })
    .exitOverride();
  for (const s of settings) {
    if (!s.flag) continue;
    program.addOption(new Option(`--${s.flag} <value>`, `${stripMarkdown(s.doc)} [env ${s.env}; default ${stripMarkdown(s.defaultDoc)}]`));
  }
  registerServe(program);
  registerWorker(program);
  registerMigrate(program);
  registerSeed(program);
  registerKeys(program);
  registerCertificates(program);
  registerStats(program);
  registerJobs(program);
  registerOrders(program);
  registerImport(program);
  registerDemoData(program);
  registerOrganization(program);
  registerUser(program);
  registerReviewer(program);
  registerProject(program);
  registerClient(program);
  program.commands.forEach((c) => c.exitOverride());
  reportUnknownOptionsFirst(program);
  return program;
}

function stripMarkdown(text: string): string {
  return text.replace(/`/g, '');
}

export async function main(argv: string[]): Promise<void> {
  const program = buildProgram();
  try {
    await program.parseAsync(argv);
  } catch (err) {
    if (err instanceof CommanderError) {
      // Commander already printed its message (help, version, unknown option ...).
      process.exitCode = err.exitCode;
      return;
    }
    const message = err instanceof Error ? err.message : String(err);
    process.stderr.write(`certdesk: ${message}\n`);
    if (!(err instanceof ConfigError) && process.env.CERTDESK_DEBUG) process.stderr.write(`${(err as Error).stack}\n`);
    process.exitCode = 1;
  }
}
