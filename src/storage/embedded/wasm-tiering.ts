/**
 * How V8 compiles the embedded database's WebAssembly (PGlite's 8.9 MB `pglite.wasm`, PostgreSQL itself).
 *
 * By default V8 compiles every function with its baseline compiler (Liftoff), then recompiles the hot ones
 * with its optimizing compiler (TurboFan) in background threads and keeps both. For PGlite that second
 * copy is most of the process's memory after the database's own heap: measured with `certdesk serve` on
 * the embedded database (bench/hostile.ts, docs/benchmarks.md), the process started at 351-434 MB with
 * tiering and at 316 MB with Liftoff only, the difference staying through the whole run (-87 MB at the
 * start of the same probe). The requests of the API (a listing page, an order, a token) spend their time
 * in JavaScript, the driver and the protocol, not in PostgreSQL's executor, and the listing latencies
 * measured with Liftoff only were no slower (bench/hostile.ts under the same load). A workload of long,
 * CPU-heavy SQL on the embedded database would run faster optimized: PostgreSQL is the database for that.
 *
 * The flag is process-wide and read when a module is compiled, so it is set before PGlite is first
 * loaded. Set at run time, `--liftoff-only` alone no longer turns tiering off on Node 24.21 (its V8 applies
 * the flag's implications only on the command line): the serve process then peaked at 910 MB while PGlite
 * started, against 351 MB. Its two implications that matter are set with it, which every supported Node
 * honours at run time. An operator who wants the optimizing tier back passes `--no-liftoff-only` (or any
 * `--liftoff-only` flag) to node: `node --no-liftoff-only bin/certdesk serve`; that choice wins.
 */
import v8 from 'node:v8';

/** `--liftoff-only` and the implications V8 applies to it on the command line: no tier-up to TurboFan. */
export const LIFTOFF_ONLY_FLAGS = ['--liftoff-only', '--no-wasm-tier-up', '--no-wasm-dynamic-tiering'] as const;

/**
 * Compiles WebAssembly with Liftoff only, unless node was started with a `--liftoff-only` or
 * `--no-liftoff-only` flag. @returns whether the flag was set here.
 */
export function compileWasmWithLiftoffOnly(execArgv: readonly string[] = process.execArgv, setFlags: (flags: string) => void = v8.setFlagsFromString): boolean {
  if (execArgv.some((arg) => /^--(no-)?liftoff[-_]only\b/.test(arg))) return false;
  setFlags(LIFTOFF_ONLY_FLAGS.join(' ')); // setting them again (a second database opened) changes nothing
  return true;
}
