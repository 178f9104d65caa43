/**
 * Runs a test script in a child process and hands back its log: pino writes to file descriptor 1
 * directly, past any in-process capture, so "this never reaches the log" is checked on a whole process's
 * output. The script writes one JSON object (what to look for) as its last line on stderr.
 *
 * @example
 * const { log, probe } = runLoggingScript<{ secret: string }>(`
 *   import { x } from ${repoFileUrl('src/x.ts')};
 *   process.stderr.write(JSON.stringify({ secret }) + '\\n');
 * `);
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** A repository file as a quoted file: URL, ready to paste into an import of a script. */
export function repoFileUrl(relativePath: string): string {
  return JSON.stringify(pathToFileURL(path.join(root, relativePath)).href);
}

export function runLoggingScript<T>(script: string): { log: string; probe: T } {
  const child = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
    cwd: root,
    encoding: 'utf8',
    env: { ...process.env, CERTDESK_ENV: 'test' },
    // Bounded, but generous: starting tsx and an embedded database took 119 s on a busy 2-core machine.
    timeout: 240_000,
  });
  assert.ok(child.signal === null, `the script was stopped by ${child.signal} (timed out?): ${child.stderr}`);
  assert.equal(child.status, 0, child.stderr);
  return { log: child.stdout, probe: JSON.parse(child.stderr.trim().split('\n').pop()!) as T };
}
