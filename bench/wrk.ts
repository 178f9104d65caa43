/**
 * Runs wrk (the Debian package `wrk`: a C load generator, like pgbench, so it takes little of the CPU the
 * server needs; autocannon, in the benchmark's own Node process, took most of a core at these rates) and
 * reads the one JSON line its Lua script prints when done (bench/wrk-*.lua: requests, time, errors,
 * latency percentiles in microseconds).
 */
import { spawn } from 'node:child_process';

export interface WrkResult {
  requests: number;
  duration_us: number;
  /** Connection errors, timeouts, and answers that were not 2xx or 3xx. */
  errors: number;
  p50_us: number;
  p99_us: number;
  max_us: number;
}

export interface WrkOptions {
  /** The first request's URL: its origin (and, without a script that makes requests, its path). */
  url: string;
  connections: number;
  seconds: number;
  /** A Lua script that ends with `done` printing the JSON line. */
  script: string;
  /** Arguments after `--`, read by the script's `init`. */
  scriptArgs?: readonly string[];
  /** Request headers, `Name: value`. */
  headers?: readonly string[];
  /** Threads of wrk (default 1: one event loop drives these connection counts). */
  threads?: number;
}

export async function runWrk(options: WrkOptions): Promise<WrkResult> {
  const args = [
    '-t', String(options.threads ?? 1),
    '-c', String(options.connections),
    '-d', `${options.seconds}s`,
    '--timeout', '10s',
    '-s', options.script,
    ...(options.headers ?? []).flatMap((h) => ['-H', h]),
    options.url,
    ...(options.scriptArgs && options.scriptArgs.length > 0 ? ['--', ...options.scriptArgs] : []),
  ];
  const child = spawn('wrk', args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr.on('data', (c: Buffer) => (err += c.toString()));
  const code = await new Promise<number | null>((resolve, reject) => {
    child.once('error', (e) => reject(new Error(`wrk could not be started (apt-get install -y wrk): ${e.message}`)));
    child.once('exit', resolve);
  });
  const line = out.split('\n').find((l) => l.startsWith('{"requests"'));
  if (code !== 0 || !line) throw new Error(`wrk failed (${code}): ${err}${out}`);
  return JSON.parse(line) as WrkResult;
}
