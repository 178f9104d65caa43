/**
 * A PostgreSQL cluster of the test's own, on a free port in a temporary directory, so a fault test can
 * restart and stop it without touching the shared server. The binaries come from
 * /usr/lib/postgresql/<version>/bin and run as user `postgres` when the test runs as root.
 *
 * @example
 * const cluster = await PrivateCluster.start();
 * try { await cluster.restart(); } finally { await cluster.destroy(); }
 */
import { execFile } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

function binDir(): string {
  const root = '/usr/lib/postgresql';
  const versions = existsSync(root) ? readdirSync(root).sort((a, b) => Number(b) - Number(a)) : [];
  const found = versions.map((v) => path.join(root, v, 'bin')).find((d) => existsSync(path.join(d, 'pg_ctl')));
  if (!found) throw new Error('no PostgreSQL binaries under /usr/lib/postgresql/*/bin');
  return found;
}

/** True when this machine can run a private cluster (the binaries exist, and root can become postgres). */
export function privateClusterAvailable(): boolean {
  try {
    binDir();
    return true;
  } catch {
    return false;
  }
}

import { freePort } from '../helpers/free-port.js';

export { freePort };

export class PrivateCluster {
  private constructor(
    readonly dir: string,
    readonly port: number,
    private readonly bin: string,
  ) {}

  get url(): string {
    return `postgres://postgres@127.0.0.1:${this.port}/postgres`;
  }

  private get dataDir(): string {
    return path.join(this.dir, 'data');
  }

  /** initdb, then start; removes everything again if either fails. */
  static async start(): Promise<PrivateCluster> {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'certdesk-pg-'));
    const cluster = new PrivateCluster(dir, await freePort(), binDir());
    try {
      if (process.getuid?.() === 0) chownSync(dir, ...(await postgresIds()));
      await cluster.exec('initdb', ['-D', cluster.dataDir, '-A', 'trust', '-U', 'postgres', '-E', 'UTF8', '--locale=C', '--no-sync']);
      await cluster.startServer();
      return cluster;
    } catch (err) {
      await cluster.destroy();
      throw err;
    }
  }

  async startServer(): Promise<void> {
    const options = [
      `-p ${this.port}`,
      "-c listen_addresses=127.0.0.1",
      `-c unix_socket_directories=${this.dir}`,
      '-c fsync=off',
      '-c synchronous_commit=off',
      '-c full_page_writes=off',
      '-c shared_buffers=16MB',
      '-c max_connections=40',
    ].join(' ');
    await this.exec('pg_ctl', ['-D', this.dataDir, '-l', path.join(this.dir, 'server.log'), '-o', options, '-w', '-t', '30', 'start']);
  }

  /** `pg_ctl restart -m fast`: every connection is terminated (57P01), then the server comes back. */
  async restart(): Promise<void> {
    await this.exec('pg_ctl', ['-D', this.dataDir, '-l', path.join(this.dir, 'server.log'), '-m', 'fast', '-w', '-t', '30', 'restart']);
  }

  async stop(mode: 'fast' | 'immediate' = 'fast'): Promise<void> {
    await this.exec('pg_ctl', ['-D', this.dataDir, '-m', mode, '-w', '-t', '30', 'stop']);
  }

  /** Stops the server if it runs and removes its directory; never throws. */
  async destroy(): Promise<void> {
    if (existsSync(path.join(this.dataDir, 'postmaster.pid'))) await this.stop('immediate').catch(() => undefined);
    rmSync(this.dir, { recursive: true, force: true });
  }

  private async exec(tool: string, args: string[]): Promise<void> {
    const file = path.join(this.bin, tool);
    const [command, argv] = process.getuid?.() === 0 ? ['runuser', ['-u', 'postgres', '--', file, ...args]] : [file, args];
    await run(command, argv, { cwd: this.dir, timeout: 60_000 });
  }
}

async function postgresIds(): Promise<[number, number]> {
  const { stdout: uid } = await run('id', ['-u', 'postgres']);
  const { stdout: gid } = await run('id', ['-g', 'postgres']);
  return [Number(uid.trim()), Number(gid.trim())];
}
