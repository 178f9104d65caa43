/**
 * The service as it was before the listing and import work (issue 12), built from this repository's own
 * history next to the working tree, so that "(c) and (d) do not get slower" is measured against that code
 * in the same run, on the same machine, data and load generator.
 *
 * Why not a recorded figure: the same baseline commit took 0.25 ms of server CPU per (d) request on
 * 2026-11-21 and 0.30–0.31 ms on 2026-11-24, and the CPU per request of today's code moved by 2× between
 * two sessions of one day. A figure from another day measures the machine as much as the code.
 *
 * The baseline is the commit whose run recorded the figures the issue was filed against (the last one before
 * the work began). Its dependencies are a subset of today's, so it runs on this checkout's node_modules
 * (checked before building). `git archive` unpacks it, so the repository's worktree list is left alone.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** Last commit before issue 12's work: "orders listing, token service and import figures re-measured". */
export const BASELINE_COMMIT = '345a215f579d1d5fd206ab9cec0020ff54bfdd20';

export interface BaselineBuild {
  /** Root of the unpacked, built baseline: `bin/certdesk` serves it (one process; it predates --workers). */
  root: string;
  commit: string;
}

function run(command: string, args: string[], cwd: string): string {
  const result = spawnSync(command, args, { cwd, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  if (result.status !== 0) throw new Error(`${command} ${args.join(' ')} failed in ${cwd}:\n${result.stderr || result.stdout}`);
  return result.stdout;
}

/**
 * Unpacks and compiles `ref` of the repository at `repoRoot` into the temporary directory (reused by later
 * runs: a commit never changes). Throws with the reason when the commit is not in this clone's history or
 * needs a package this checkout does not have.
 */
export function buildBaseline(repoRoot: string, ref = BASELINE_COMMIT): BaselineBuild {
  const commit = spawnSync('git', ['rev-parse', '--verify', '--quiet', `${ref}^{commit}`], { cwd: repoRoot, encoding: 'utf8' }).stdout.trim();
  if (!commit) throw new Error(`baseline ${ref} is not in this clone's history (a shallow clone?); --baseline none skips the comparison`);
  const root = path.join(os.tmpdir(), `certdesk-baseline-${commit.slice(0, 12)}`);
  const built = path.join(root, 'dist', '.baseline-built');
  if (existsSync(built)) return { root, commit };

  rmSync(root, { recursive: true, force: true });
  mkdirSync(root, { recursive: true });
  const archive = spawnSync('git', ['archive', '--format=tar', commit], { cwd: repoRoot, maxBuffer: 512 * 1024 * 1024 });
  if (archive.status !== 0) throw new Error(`git archive ${commit} failed: ${archive.stderr.toString()}`);
  const untar = spawnSync('tar', ['-x', '-C', root], { input: archive.stdout });
  if (untar.status !== 0) throw new Error(`unpacking the baseline failed: ${untar.stderr.toString()}`);

  const pkg = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { dependencies?: object; devDependencies?: object };
  const missing = [...Object.keys(pkg.dependencies ?? {}), ...Object.keys(pkg.devDependencies ?? {})].filter(
    (name) => !existsSync(path.join(repoRoot, 'node_modules', name, 'package.json')),
  );
  if (missing.length > 0) throw new Error(`the baseline needs packages this checkout does not have: ${missing.join(', ')}`);
  symlinkSync(path.join(repoRoot, 'node_modules'), path.join(root, 'node_modules'), 'dir');

  // A baseline with browser bundles (scripts/build.mjs) builds the way it ships; an older one is tsc alone.
  if (existsSync(path.join(root, 'scripts', 'build.mjs'))) run(process.execPath, ['scripts/build.mjs'], root);
  else run(process.execPath, [path.join(repoRoot, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.build.json'], root);
  run(process.execPath, ['-e', `require('fs').writeFileSync(${JSON.stringify(built)}, ${JSON.stringify(commit)})`], root);
  return { root, commit };
}
