/** What the benchmark scripts share about the server they start: its start banner, stopping it, its CPU and memory. */
import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { readdirSync, readFileSync } from 'node:fs';
import pg from 'pg';

/** SIGTERM, then SIGKILL when it has not exited within `graceMs`. */
export async function stopChild(child: ChildProcess, graceMs: number): Promise<void> {
  if (child.exitCode !== null) return;
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
  await once(child, 'exit');
  clearTimeout(timer);
}

/** `pid` and its children (the workers of `serve --workers N`). */
export function processTree(pid: number): number[] {
  const pids = [pid];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      if (Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === pid) pids.push(Number(entry));
    } catch {
      // exited while listing
    }
  }
  return pids;
}

/** CPU time (user + system) of a process in ms (Linux counts ticks of 1/100 s); 0 once it is gone. */
export function cpuMsOf(pid: number): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return 0;
  }
}

/** Waits for `certdesk serve`'s "serving on <url>" line (at most 60 s) and returns the URL. */
export async function servingUrl(child: ChildProcess): Promise<string> {
  let out = '';
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`serve did not start in 60 s: ${out}`)), 60_000);
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const m = /serving on (http:\/\/[^\s]+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]!);
      }
    });
    child.once('exit', (code) => reject(new Error(`serve exited with ${code}: ${out}`)));
  });
  child.stdout!.resume();
  return url;
}

/** Resident and peak resident memory of a process, in MB. */
export function memoryOf(pid: number): { rss: number; hwm: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
  return { rss: kb('VmRSS') / 1024, hwm: kb('VmHWM') / 1024 };
}

/**
 * The backends one server opened: its pools connect with `PGAPPNAME` set to `applicationName` (node-postgres
 * reads it), which tells them apart from another server's on the same database.
 */
export async function postgresBackendsOf(databaseUrl: string, applicationName: string): Promise<number[]> {
  const client = new pg.Client({ connectionString: databaseUrl, application_name: 'certdesk-bench-probe' });
  await client.connect();
  try {
    const r = await client.query<{ pid: number }>('SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND application_name = $1', [applicationName]);
    return r.rows.map((row) => row.pid);
  } finally {
    await client.end();
  }
}

/** PostgreSQL backends connected to `database` (the server's pool); empty when /proc does not show them. */
export function postgresBackends(database: string): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const cmd = readFileSync(`/proc/${entry}/cmdline`, 'utf8');
      if (cmd.startsWith('postgres: ') && cmd.includes(` ${database} `)) pids.push(Number(entry));
    } catch {
      // exited, or not ours to read
    }
  }
  return pids;
}
