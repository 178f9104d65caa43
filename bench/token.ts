/**
 * Token service benchmark (`npm run bench:token`): not a test. Starts the application (buildServer, the real
 * token endpoint) listening on 127.0.0.1 in a child process — on embedded in-memory PGlite, then again on
 * PostgreSQL when DATABASE_URL is given — creates an API client, and measures with autocannon (32 connections, 10 s each,
 * BENCH_DURATION to change):
 *   (1) tokens issued per second (POST /oauth2/token, client_secret_post, valid credentials);
 *   (2) a minimal route without authentication, and (3) the same route behind requireScope (bearer
 *       verification), both sent the same Authorization header, to show what verification adds.
 * Prints a markdown table and writes it to docs/benchmarks.md under "## Token service". Stops by itself.
 *
 * The server runs in a child process so the load generator does not share its event loop.
 * `bench/token.ts --serve` is that child.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { writeBenchmarkSection } from './benchmarks-doc.js';

declare module 'autocannon' {
  interface Options {
    method?: string;
    body?: string;
  }
}

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const CONNECTIONS = 32;
const DURATION = Number(process.env.BENCH_DURATION ?? 10);
const HEADING = '## Token service';
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);

function log(message: string): void {
  process.stderr.write(`[bench:token] ${message}\n`);
}

interface ServerInfo {
  url: string;
  clientId: string;
  clientSecret: string;
  accessToken: string;
  database: string;
}

/** Child mode: the real application plus two minimal routes, one open and one protected. */
async function serve(): Promise<void> {
  const { loadConfig } = await import('../src/config.js');
  const { openDatabase } = await import('../src/storage/database.js');
  const { migrate } = await import('../src/storage/migrate.js');
  const { buildServer } = await import('../src/app/http-server.js');
  const { createServices } = await import('../src/app/services.js');
  const { requireScope } = await import('../src/oauth/index.js');
  const { createApiClient } = await import('../src/domain/api-clients/index.js');
  const { SCOPES } = await import('../src/contract/schemas.js');
  const { randomUUID } = await import('node:crypto');

  const config = loadConfig({ ...process.env, LOG_LEVEL: 'silent', PORT: '0', HOST: '127.0.0.1', CERTDESK_ENV: 'test' });
  const database = await openDatabase({ databaseUrl: config.databaseUrl, pgliteDir: null, poolSize: config.databasePoolSize });
  await migrate(database);
  const organizationId = randomUUID();
  const userId = randomUUID();
  const email = `bench-${userId}@bench.test`;
  await database.db.insertInto('organizations').values({ id: organizationId, name: 'Token bench' }).execute();
  await database.db.insertInto('users').values({ id: userId, organization_id: organizationId, email, email_key: email, username: 'bench' }).execute();
  const { client, clientSecret } = await createApiClient(database.db, { organizationId, userId, name: 'token bench', scopes: [SCOPES.read] });

  const services = await createServices({ config, database });
  const app = await buildServer(services);
  const payload = { ok: true };
  app.get('/bench/open', async () => payload);
  app.get('/bench/protected', { onRequest: requireScope(SCOPES.read) }, async () => payload);
  // The server's own CPU time: per-request cost that other processes on the machine cannot inflate.
  app.get('/bench/cpu', async () => process.cpuUsage());
  const url = await app.listen({ host: '127.0.0.1', port: 0 });

  const res = await fetch(`${url}/oauth2/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'client_credentials', client_id: client.clientId, client_secret: clientSecret }),
  });
  const { access_token: accessToken } = (await res.json()) as { access_token: string };
  const info: ServerInfo = { url, clientId: client.clientId, clientSecret, accessToken, database: database.kind === 'pglite' ? 'PGlite (in memory)' : 'PostgreSQL' };
  process.stdout.write(`${JSON.stringify(info)}\n`);
  const stop = async () => {
    await app.close();
    await services.close();
    // Leave a shared PostgreSQL as it was: the bench client and its user go again.
    await database.db.deleteFrom('api_clients').where('organization_id', '=', organizationId).execute();
    await database.db.deleteFrom('users').where('organization_id', '=', organizationId).execute();
    await database.db.deleteFrom('organizations').where('id', '=', organizationId).execute();
    await database.close();
    process.exit(0);
  };
  process.once('SIGTERM', () => void stop());
}

async function startServer(databaseUrl: string | undefined): Promise<{ child: ChildProcess; info: ServerInfo }> {
  const env = { ...process.env };
  if (databaseUrl) env.DATABASE_URL = databaseUrl;
  else delete env.DATABASE_URL;
  const child = spawn(process.execPath, ['--import', 'tsx', fileURLToPath(import.meta.url), '--serve'], {
    cwd: ROOT,
    env,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const lines = createInterface({ input: child.stdout! });
  const first = await Promise.race([
    once(lines, 'line') as Promise<[string]>,
    once(child, 'exit').then(([code]) => {
      throw new Error(`server exited with ${String(code)}`);
    }),
  ]);
  lines.close();
  child.stdout!.resume();
  return { child, info: JSON.parse(first[0]) as ServerInfo };
}

interface Measurement {
  rps: number;
  p50: number;
  p99: number;
  mean: number;
  /** Server CPU time (user + system) per request, in microseconds. */
  cpuUs: number;
  errors: number;
}

async function serverCpu(baseUrl: string): Promise<number> {
  const usage = (await (await fetch(`${baseUrl}/bench/cpu`)).json()) as { user: number; system: number };
  return usage.user + usage.system;
}

async function run(name: string, baseUrl: string, options: Parameters<typeof autocannon>[0], expected2xx = true): Promise<Measurement> {
  log(`${name}: ${CONNECTIONS} connections, ${DURATION} s`);
  const cpuBefore = await serverCpu(baseUrl);
  const result = await autocannon({ connections: CONNECTIONS, duration: DURATION, ...options });
  const cpu = (await serverCpu(baseUrl)) - cpuBefore;
  const errors = result.errors + result.timeouts + (expected2xx ? result.non2xx : 0);
  return {
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    mean: result.latency.mean,
    cpuUs: cpu / Math.max(1, result.requests.total),
    errors,
  };
}

/** The run with the median server CPU per request (its own figures, not a mix of runs). */
function median(runs: Measurement[]): Measurement {
  const sorted = [...runs].sort((a, b) => a.cpuUs - b.cpuUs);
  const middle = sorted[Math.floor(sorted.length / 2)]!;
  return { ...middle, errors: runs.reduce((n, r) => n + r.errors, 0) };
}

function cpuDescription(): string {
  const cpus = os.cpus();
  return `${cpus.length} CPUs (${cpus[0]?.model.trim() ?? 'unknown'})`;
}

interface Run {
  info: ServerInfo;
  tokens: Measurement;
  open: Measurement;
  guarded: Measurement;
}

function report(runs: Run[]): string {
  const fmt = (n: number) => Math.round(n).toLocaleString('en-US');
  const ms = (n: number) => n.toFixed(2);
  const signed = (ratio: number) => `${ratio >= 0 ? '+' : '−'}${Math.abs(ratio * 100).toFixed(1)} %`;
  const rows: string[] = [];
  const goals: string[] = [];
  let errors = 0;
  for (const { info, tokens, open, guarded } of runs) {
    const db = info.database;
    rows.push(
      `| ${db} | (1) POST /oauth2/token (client_secret_post) | ${fmt(tokens.rps)} | ${ms(tokens.mean)} | ${tokens.p50} | ${tokens.p99} | ${fmt(tokens.cpuUs)} |`,
      `| ${db} | (2) minimal route, no authentication (same header sent) | ${fmt(open.rps)} | ${ms(open.mean)} | ${open.p50} | ${open.p99} | ${fmt(open.cpuUs)} |`,
      `| ${db} | (3) same route behind requireScope (bearer verification) | ${fmt(guarded.rps)} | ${ms(guarded.mean)} | ${guarded.p50} | ${guarded.p99} | ${fmt(guarded.cpuUs)} |`,
    );
    const added = (guarded.cpuUs - open.cpuUs) / open.cpuUs;
    const latency = (guarded.mean - open.mean) / open.mean;
    const rpsChange = (guarded.rps - open.rps) / open.rps;
    goals.push(
      `| ${db}: ≥ 3,000 tokens/s (${fmt(tokens.rps)}) | ${tokens.rps >= 3000 ? 'met' : '**not met**'} |`,
      `| ${db}: verification adds ≤ 15 % (server CPU per request ${signed(added)}; mean latency ${signed(latency)}, throughput ${signed(rpsChange)}) | ${added <= 0.15 ? 'met' : '**not met**'} |`,
    );
    errors += tokens.errors + open.errors + guarded.errors;
  }
  return [
    HEADING,
    '',
    `Run ${new Date().toISOString()} by \`npm run bench:token\` (bench/token.ts): ${cpuDescription()}, ${Math.round(os.totalmem() / 2 ** 30)} GB, ` +
      `Node ${process.version}; the server (the real application in a child process) and autocannon share the machine. ` +
      `Load average when the run ended: ${os.loadavg().map((l) => l.toFixed(1)).join(' / ')}. ` +
      `${CONNECTIONS} connections, ${DURATION} s per scenario after a warm-up; (2) and (3) alternate over ${ROUNDS} rounds and the ` +
      'round with the median server CPU per request is shown. The overhead goal is judged on server CPU time per request ' +
      '(measured inside the server process), which other load on the machine does not inflate; latency and throughput are ' +
      'shown too but swing with that load. Tokens are ES256 JWTs signed per request; ' +
      'client lookups are served from the ≤ 5 s client cache, `last_used_at` is written at most once a minute, and a ' +
      'token verified once is remembered until it expires (its client is still checked on every request).',
    '',
    '| Database | Scenario | req/s | mean ms | p50 ms | p99 ms | server CPU µs/req |',
    '|---|---|---:|---:|---:|---:|---:|',
    ...rows,
    '',
    '| Goal | Result |',
    '|---|---|',
    ...goals,
    '',
    `Errors or unexpected answers during the runs: ${errors}.`,
    '',
  ].join('\n');
}

async function measureServer(databaseUrl: string | undefined): Promise<Run> {
  const { child, info } = await startServer(databaseUrl);
  try {
    log(`server on ${info.url} (${info.database})`);
    const tokenRequest = {
      url: `${info.url}/oauth2/token`,
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'client_credentials', client_id: info.clientId, client_secret: info.clientSecret }).toString(),
    };
    const bearer = { authorization: `Bearer ${info.accessToken}` };
    log('warm-up');
    await autocannon({ ...tokenRequest, connections: CONNECTIONS, duration: 2 });
    await autocannon({ url: `${info.url}/bench/protected`, headers: bearer, connections: CONNECTIONS, duration: 2 });
    const tokens = await run('tokens', info.url, tokenRequest);
    // The machine is shared: alternate the two routes over several rounds and keep the median of each,
    // so a change of background load does not land on one side only.
    const opens: Measurement[] = [];
    const guardeds: Measurement[] = [];
    for (let round = 1; round <= ROUNDS; round++) {
      // The same Authorization header on both routes: the difference is the check, not the header's bytes.
      opens.push(await run(`open route, round ${round}/${ROUNDS}`, info.url, { url: `${info.url}/bench/open`, headers: bearer }));
      guardeds.push(await run(`protected route, round ${round}/${ROUNDS}`, info.url, { url: `${info.url}/bench/protected`, headers: bearer }));
    }
    return { info, tokens, open: median(opens), guarded: median(guardeds) };
  } finally {
    child.kill('SIGTERM');
    await once(child, 'exit');
  }
}

async function main(): Promise<void> {
  const runs = [await measureServer(undefined)];
  if (process.env.DATABASE_URL) runs.push(await measureServer(process.env.DATABASE_URL));
  const section = report(runs);
  process.stdout.write(`${section}\n`);
  writeBenchmarkSection(HEADING, section);
  log('wrote docs/benchmarks.md');
}

if (process.argv.includes('--serve')) {
  await serve();
} else {
  await main();
}
