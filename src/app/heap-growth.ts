/**
 * How far V8 lets the old generation grow past the live heap before its next full collection, for the
 * long-running processes (`serve` and its workers, `certdesk worker`).
 *
 * Left to itself, V8 picks a growing factor of up to 4 when collections are fast. A listing page allocates
 * about half a megabyte that lives only for its request, and under load much of it is promoted before it
 * dies, so a worker with ~35 MB of live heap let its heap reach ~170 MB between full collections: a
 * third of its resident memory was garbage waiting for a collection. A factor of 2 halves that headroom.
 * Measured (10-20 s of `limit=200` full pages, 32 connections, `serve --workers 2`, alternating runs):
 * peak RSS per worker 253-271 MB → 186-201 MB, for about 10 % more server CPU per request (twice as many
 * full collections, 5-15 ms each); a factor of 3 gave 223-234 MB at no measurable cost. The service's
 * memory goal is 300 MB per process through every benchmark scenario (the default peaked at ~400 MB there,
 * a factor of 2 at 257 MB), hence 2. It is a growing factor, not a cap: a process that needs a large heap
 * (an analysis of a big layered file) still gets it, only collected sooner.
 *
 * A caps-only alternative, --max-old-space-size, does not work here: V8 then shrinks its growing factor
 * toward 1.1 and ran a full collection every ~100 ms, +60 % CPU per request.
 */
import v8 from 'node:v8';

/** The old generation may grow to (1 + HEAP_GROWING_PERCENT / 100) × the live heap before a full collection. */
export const HEAP_GROWING_PERCENT = 100;

/**
 * Sets V8's heap growing factor for this process, unless the operator chose one on the command line
 * (`node --heap-growing-percent=N bin/certdesk serve`), which wins. Call it first thing in a long-running
 * command: V8 reads the flag each time it sets the next collection's limit.
 * @returns whether the flag was set here.
 */
export function limitHeapGrowth(execArgv: readonly string[] = process.execArgv, setFlags: (flags: string) => void = v8.setFlagsFromString): boolean {
  if (execArgv.some((arg) => /^--heap[-_]growing[-_]percent\b/.test(arg))) return false;
  setFlags(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
  return true;
}

/**
 * Keeps V8's young generation at its starting size (1 MB semi-spaces) while the process starts, unless the
 * operator chose a growth factor (`--semi-space-growth-factor`). V8 doubles the semi-spaces up to their
 * maximum while survival is high, which a start always is (migrations checked, schemas compiled, PGlite's
 * start), and keeps them: 33 MB of new space for 1-8 MB of live objects, in every process. The growth
 * factor is read at each growth, so a factor of 1 set first thing keeps the starting size.
 *
 * Once the process serves, releaseYoungGeneration gives V8 its own factor back, and the young generation
 * grows only under the allocation that needs it: a listing page allocates about half a megabyte that lives
 * for its request, and at 32 concurrent requests 1 MB semi-spaces promote much of it before it dies.
 * Pinned for good, the young generation cost the listing about a quarter of its speed (issue 29: 315-340
 * against 431-467 req/s with 16 MB; docs/benchmarks.md, "Memory settings"). The maximum a worker may grow
 * to is serve-cluster.ts's WORKER_SEMI_SPACE_MB (or the operator's `--max-semi-space-size`).
 * @returns whether the flag was set here (and so whether releaseYoungGeneration should undo it).
 */
export function limitYoungGeneration(execArgv: readonly string[] = process.execArgv, setFlags: (flags: string) => void = v8.setFlagsFromString): boolean {
  if (execArgv.some((arg) => /^--semi[-_]space[-_]growth[-_]factor\b/.test(arg))) return false;
  setFlags('--semi-space-growth-factor=1');
  return true;
}

/** V8's own semi-space growth factor, restored by releaseYoungGeneration. */
export const V8_SEMI_SPACE_GROWTH_FACTOR = 2;

/**
 * Lets the young generation grow again (V8's own factor) once the process has started: call it when the
 * server listens, with what limitYoungGeneration returned.
 */
export function releaseYoungGeneration(limited: boolean, setFlags: (flags: string) => void = v8.setFlagsFromString): void {
  if (limited) setFlags(`--semi-space-growth-factor=${V8_SEMI_SPACE_GROWTH_FACTOR}`);
}
