/**
 * The certdesk command. Each subcommand lives in its own module under commands/ and registers itself here.
 * Any error ends as one line on stderr and a non-zero exit code.
 */
import { Command, CommanderError, Option } from 'commander';
import { ConfigError, settings } from '../config.js';
import { reportUnknownOptionsFirst } from './unknown-options-first.js';

type Register = (program: Command) => void;

/**
 * Every command, in the order `--help` lists them, with the module that registers it. The modules are
 * imported on demand: each pulls in what its command needs (the web application, the import pipeline,
 * the job runtime ...), and a process that loaded all of them carried every command's code. That mattered
 * most for `serve --workers N`, whose primary serves nothing but held the whole application (~90 MB of
 * resident memory, docs/benchmarks.md "Hostile files").
 */
const COMMANDS: ReadonlyArray<readonly [name: string, load: () => Promise<Register>]> = [
  ['serve', async () => (await import('./commands/serve.js')).registerServe],
  ['worker', async () => (await import('./commands/worker.js')).registerWorker],
  ['migrate', async () => (await import('./commands/migrate.js')).registerMigrate],
  ['seed', async () => (await import('./commands/seed.js')).registerSeed],
  ['keys', async () => (await import('./commands/keys.js')).registerKeys],
  ['certificates', async () => (await import('./commands/certificates.js')).registerCertificates],
  ['log', async () => (await import('./commands/log.js')).registerLog],
  ['stats', async () => (await import('./commands/stats.js')).registerStats],
  ['jobs', async () => (await import('./commands/jobs.js')).registerJobs],
  ['orders', async () => (await import('./commands/orders.js')).registerOrders],
  ['import', async () => (await import('./commands/import.js')).registerImport],
  ['demo-data', async () => (await import('./commands/demo-data.js')).registerDemoData],
  ['org', async () => (await import('./commands/organization.js')).registerOrganization],
  ['user', async () => (await import('./commands/user.js')).registerUser],
  ['reviewer', async () => (await import('./commands/reviewer.js')).registerReviewer],
  ['project', async () => (await import('./commands/project.js')).registerProject],
  ['client', async () => (await import('./commands/client.js')).registerClient],
];

/**
 * The command named in `args` (the arguments after `node certdesk`): the first one that is neither a
 * global option nor the value of one. Undefined when there is none (`certdesk --help`).
 */
export function commandNameOf(args: readonly string[]): string | undefined {
  const takesValue = new Set(settings.filter((s) => s.flag).map((s) => `--${s.flag}`));
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === '--') return args[i + 1];
    if (!arg.startsWith('-')) return arg;
    if (takesValue.has(arg)) i++; // `--port 3000`; `--port=3000` is one argument
  }
  return undefined;
}

/**
 * The program with the command `args` names registered, or every command when `args` names none that
 * exists (`--help`, a misspelt command: Commander then lists them all or suggests the nearest).
 */
export async function buildProgram(args?: readonly string[]): Promise<Command> {
  const program = new Command('certdesk')
    .description('Certificate Orders and Projects Service: API, token service, web application and operator commands')
    // Usage errors are one line, like every other error: `certdesk: unknown option '--x' (see --help)`.
    .configureOutput({ outputError: (text, write) => write(`certdesk: ${text.replace(/^error: /, '').trim()} (see --help)\n`) })
    .exitOverride();
  for (const s of settings) {
    if (!s.flag) continue;
    program.addOption(new Option(`--${s.flag} <value>`, `${stripMarkdown(s.doc)} [env ${s.env}; default ${stripMarkdown(s.defaultDoc)}]`));
  }
  const name = args ? commandNameOf(args) : undefined;
  const chosen = COMMANDS.filter(([n]) => n === name);
  for (const [, load] of chosen.length > 0 ? chosen : COMMANDS) (await load())(program);
  program.commands.forEach((c) => c.exitOverride());
  reportUnknownOptionsFirst(program);
  return program;
}

function stripMarkdown(text: string): string {
  return text.replace(/`/g, '');
}

export async function main(argv: string[]): Promise<void> {
  let program: Command;
  try {
    program = await buildProgram(argv.slice(2));
  } catch (err) {
    process.stderr.write(`certdesk: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exitCode = 1;
    return;
  }
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
