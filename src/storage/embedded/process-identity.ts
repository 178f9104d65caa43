/**
 * Who a process is, in a form another process can check later: its pid plus, where the operating system
 * tells (Linux /proc), when it started and which boot it belongs to. A pid alone is not enough: after a
 * crash or a reboot the same number is soon handed to an unrelated process.
 */
import fs from 'node:fs';
import os from 'node:os';

export interface ProcessIdentity {
  pid: number;
  hostname: string;
  /** Start time in clock ticks since boot (field 22 of /proc/PID/stat); null where /proc is missing. */
  startTime: string | null;
  /** /proc/sys/kernel/random/boot_id: a pid and start time only mean something within one boot. */
  bootId: string | null;
}

function readOrNull(file: string): string | null {
  try {
    return fs.readFileSync(file, 'utf8').trim();
  } catch {
    return null;
  }
}

/** Start time of a running process, or null when it does not exist or /proc is not available. */
export function startTimeOf(pid: number): string | null {
  const stat = readOrNull(`/proc/${pid}/stat`);
  if (!stat) return null;
  // The command name (field 2) is in parentheses and may itself contain spaces and parentheses.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return fields[19] ?? null; // field 22 overall; `fields` starts at field 3
}

export function currentProcessIdentity(): ProcessIdentity {
  return {
    pid: process.pid,
    hostname: os.hostname(),
    startTime: startTimeOf(process.pid),
    bootId: readOrNull('/proc/sys/kernel/random/boot_id'),
  };
}

export type Liveness = 'alive' | 'dead' | 'unknown';

/**
 * Whether the process an identity describes still runs. 'unknown' (another host) must be treated as
 * alive by callers: taking over a lock of a process we cannot see is never safe.
 */
export function livenessOf(identity: ProcessIdentity): Liveness {
  if (identity.hostname !== os.hostname()) return 'unknown';
  if (!Number.isInteger(identity.pid) || identity.pid <= 0) return 'dead';
  try {
    process.kill(identity.pid, 0);
  } catch (err) {
    // EPERM: the process exists but belongs to another user.
    if ((err as NodeJS.ErrnoException).code === 'ESRCH') return 'dead';
  }
  const bootId = readOrNull('/proc/sys/kernel/random/boot_id');
  if (identity.bootId && bootId && identity.bootId !== bootId) return 'dead';
  if (identity.startTime) {
    const now = startTimeOf(identity.pid);
    // The pid exists, but it was started later: a new process that reuses the number.
    if (now !== null && now !== identity.startTime) return 'dead';
  }
  return 'alive';
}
