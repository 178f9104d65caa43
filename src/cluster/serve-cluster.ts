/**
 * `serve --workers N`: N worker processes (node:cluster) share the listening port, so the service uses
 * every core. The primary serves nothing itself: it forks the workers, prints one "serving on" line once
 * all of them listen, replaces a worker that dies, and on SIGTERM/SIGINT asks every worker to drain
 * (each runs its own graceful shutdown) and exits when the last one has.
 *
 * Each worker is a whole `serve` (its own database pool, caches, key material loaded from the database),
 * so per-process state is a copy: caches stay correct per process, in-process rate limits count per
 * worker unless REDIS_URL shares them. The embedded database (PGlite) is single-process: with it, the
 * caller clamps workers to 1 (`workerCount`).
 */
import cluster, { type Worker } from 'node:cluster';
import os from 'node:os';
import { answerClusterMetricsRequests } from './cluster-metrics.js';

/** Message a worker sends its primary once it listens. */
interface ListeningMessage {
  type: 'certdesk:listening';
  address: string;
  description: string;
}

function isListeningMessage(m: unknown): m is ListeningMessage {
  return typeof m === 'object' && m !== null && (m as { type?: unknown }).type === 'certdesk:listening';
}

/** True in a worker forked by `runClusterPrimary`. */
export function isClusterWorker(): boolean {
  return cluster.isWorker;
}

/** Tells the primary this worker listens (a no-op outside a cluster). */
export function reportListening(address: string, description: string): void {
  if (cluster.isWorker && process.send) process.send({ type: 'certdesk:listening', address, description } satisfies ListeningMessage);
}

/**
 * How many workers to run: the requested count (default: the CPUs available), clamped to 1 with the
 * embedded database, which one process owns. `notice` is the one line to print when a request was clamped.
 */
export function workerCount(requested: number | undefined, embedded: boolean): { workers: number; notice: string | null } {
  if (embedded) {
    const notice = requested !== undefined && requested > 1
      ? `--workers ${requested}: the embedded database is single-process, serving with 1 worker (set DATABASE_URL to use more)`
      : null;
    return { workers: 1, notice };
  }
  return { workers: Math.max(1, requested ?? os.availableParallelism()), notice: null };
}

/** Each worker's V8 semi-space at most, in MB (its young generation is about three of them): V8's own 64-bit maximum. */
export const WORKER_SEMI_SPACE_MB = 16;

/**
 * The node flags a worker starts with: the primary's, plus a young generation of at most
 * WORKER_SEMI_SPACE_MB unless the operator chose a size (`node --max-semi-space-size=N bin/certdesk serve`).
 *
 * The size is a maximum, not what a worker holds: each worker keeps the starting 1 MB semi-spaces through
 * its start (heap-growth.ts limitYoungGeneration; a start grew them to the maximum and kept them) and lets
 * them grow only once it serves, under load that needs them. Chosen with the listing and the hostile-file
 * benchmarks side by side (docs/benchmarks.md, "Memory settings"): a cap of 4 MB held the tree's peak
 * under the hostile files at 366-372 MB but cost a listing of full pages about a quarter of its speed
 * (server CPU per request 2.8 against 1.4-2.1 ms in alternating runs); with 16 MB, grown only when
 * serving, the hostile-file peak stayed under its 400 MB goal. The flag has to be on the command line:
 * V8 sizes the young generation's reservation when the process starts.
 */
export function workerExecArgv(execArgv: readonly string[] = process.execArgv): string[] {
  if (execArgv.some((arg) => /^--max[-_]semi[-_]space[-_]size\b/.test(arg))) return [...execArgv];
  return [...execArgv, `--max-semi-space-size=${WORKER_SEMI_SPACE_MB}`];
}

export interface ClusterOptions {
  workers: number;
  /** One line of operator output (stderr). */
  log: (line: string) => void;
  /** Called once, when every worker listens. */
  onListening: (address: string, description: string) => void;
  /** How long a draining worker may take before it is killed (default 30 s). */
  drainTimeoutMs?: number;
}

/**
 * Runs the primary until shutdown. Resolves with the exit code: 0 after a requested shutdown, 1 when a
 * worker failed before it ever listened (a configuration or port problem: restarting would only loop).
 */
export function runClusterPrimary(options: ClusterOptions): Promise<number> {
  const drainTimeoutMs = options.drainTimeoutMs ?? 30_000;
  const live = new Set<Worker>();
  const listening = new Set<Worker>();
  let started = false;
  let stopping = false;
  let exitCode = 0;
  return new Promise((resolve) => {
    const finishIfDone = () => {
      if (stopping && live.size === 0) resolve(exitCode);
    };
    const stopAll = (code: number) => {
      if (stopping) return;
      stopping = true;
      exitCode = code;
      for (const w of live) {
        w.process.kill('SIGTERM');
        setTimeout(() => w.process.kill('SIGKILL'), drainTimeoutMs).unref();
      }
      finishIfDone();
    };
    const fork = () => {
      const worker = cluster.fork();
      live.add(worker);
      worker.on('message', (m: unknown) => {
        if (!isListeningMessage(m)) return;
        listening.add(worker);
        if (!started && listening.size === options.workers) {
          started = true;
          options.onListening(m.address, m.description);
        } else if (started) {
          options.log(`worker ${worker.process.pid} listening`);
        }
      });
      worker.on('exit', (code, signal) => {
        live.delete(worker);
        const listened = listening.delete(worker);
        if (stopping) return finishIfDone();
        const how = signal ?? `exit code ${code}`;
        if (!listened) {
          options.log(`worker ${worker.process.pid} stopped before it listened (${how}); stopping`);
          return stopAll(1);
        }
        // A worker that served and then died is replaced; the others keep answering meanwhile.
        options.log(`worker ${worker.process.pid} died (${how}); starting a replacement`);
        fork();
      });
    };
    process.once('SIGTERM', () => stopAll(0));
    process.once('SIGINT', () => stopAll(0));
    answerClusterMetricsRequests();
    cluster.setupPrimary({ execArgv: workerExecArgv() });
    for (let i = 0; i < options.workers; i++) fork();
  });
}
