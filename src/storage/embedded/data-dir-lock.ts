/**
 * One owner per embedded database directory. PGlite keeps the database in memory and writes it back to
 * its directory, so two processes on one directory silently lose each other's writes. The owner holds
 * `<dir>.lock`, a small JSON record naming the process (pid, start time, boot, host) and, for a serving
 * process, the socket through which it shares the database.
 *
 * Why not a heartbeat lock (proper-lockfile and the like): they judge an owner dead when it has not
 * touched the lock for some seconds, and a PGlite process blocks its event loop for seconds on a large
 * statement, so a live owner would lose its lock. Liveness is judged by the process itself instead.
 *
 * Creation is atomic (a complete file is hard-linked into place, or O_EXCL where links are not
 * available). A lock whose process is dead is taken over under a second, short-lived lock
 * (`<dir>.lock.takeover`), and only after reading it again under that lock, so two processes that both
 * find a stale lock cannot both take it over. (The one case left: a process killed inside the
 * millisecond it holds the takeover lock, and then two processes removing that dead takeover lock at
 * the same instant.)
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { currentProcessIdentity, livenessOf, type Liveness, type ProcessIdentity } from './process-identity.js';

export type OwnerRole = 'serve' | 'command';

export interface DataDirOwner extends ProcessIdentity {
  /** `serve` shares the database over its socket; a `command` (migrate, seed ...) holds it alone. */
  role: OwnerRole;
  /** Directory of the owner's unix socket (`.s.PGSQL.5432` inside); null until it listens. */
  socketDir: string | null;
  acquiredAt: string;
  /** Random per acquisition, so an owner only ever removes its own lock file. */
  token: string;
}

export class DataDirInUseError extends Error {
  override name = 'DataDirInUseError';
  constructor(
    readonly directory: string,
    /** null: the lock file exists but cannot be read (written by something else, or damaged). */
    readonly owner: DataDirOwner | null,
    readonly liveness: Liveness,
  ) {
    super(
      owner
        ? `the embedded database ${directory} is in use by certdesk ${owner.role === 'serve' ? 'serve' : 'command'} (pid ${owner.pid}${liveness === 'unknown' ? ` on host ${owner.hostname}` : ''})`
        : `the embedded database ${directory} is locked by ${lockPathOf(directory)}, which cannot be read; remove it if no certdesk process uses the directory`,
    );
  }
}

export function lockPathOf(directory: string): string {
  return `${directory}.lock`;
}

const TAKEOVER_ATTEMPTS = 100;
const TAKEOVER_WAIT_MS = 20;

function parseOwner(text: string): DataDirOwner | null {
  try {
    const value = JSON.parse(text) as Partial<DataDirOwner>;
    if (typeof value.pid !== 'number' || typeof value.hostname !== 'string' || typeof value.token !== 'string') return null;
    return {
      pid: value.pid,
      hostname: value.hostname,
      startTime: typeof value.startTime === 'string' ? value.startTime : null,
      bootId: typeof value.bootId === 'string' ? value.bootId : null,
      role: value.role === 'serve' ? 'serve' : 'command',
      socketDir: typeof value.socketDir === 'string' ? value.socketDir : null,
      acquiredAt: String(value.acquiredAt ?? ''),
      token: value.token,
    };
  } catch {
    return null;
  }
}

type LockFileState = { kind: 'absent' } | { kind: 'unreadable' } | { kind: 'owned'; owner: DataDirOwner };

async function readLockFile(file: string): Promise<LockFileState> {
  let text: string;
  try {
    text = await fsp.readFile(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { kind: 'absent' };
    throw err;
  }
  const owner = parseOwner(text);
  return owner ? { kind: 'owned', owner } : { kind: 'unreadable' };
}

/** The current owner of the directory when one is alive (or on another host), else null. */
export async function liveOwnerOf(directory: string): Promise<DataDirOwner | null> {
  const state = await readLockFile(lockPathOf(directory));
  if (state.kind !== 'owned') return null;
  return livenessOf(state.owner) === 'dead' ? null : state.owner;
}

/**
 * Creates `file` holding `content`, atomically: readers never see it empty or half written.
 * @returns false when the file already exists.
 */
async function createExclusive(file: string, content: string): Promise<boolean> {
  const scratch = `${file}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
  await fsp.writeFile(scratch, content, { mode: 0o600 });
  try {
    await fsp.link(scratch, file);
    return true;
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') return false;
    if (code !== 'EPERM' && code !== 'ENOTSUP' && code !== 'EOPNOTSUPP' && code !== 'ENOSYS') throw err;
  } finally {
    await fsp.rm(scratch, { force: true });
  }
  // A file system without hard links: O_EXCL. A reader in the instant between create and write sees
  // an unreadable lock and refuses, which is the safe side.
  try {
    await fsp.writeFile(file, content, { flag: 'wx', mode: 0o600 });
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw err;
  }
}

/** Removes the lock file of a dead owner, unless another process is doing the same right now. */
async function removeStaleLock(lockFile: string): Promise<void> {
  const takeover = `${lockFile}.takeover`;
  const me = JSON.stringify({ ...currentProcessIdentity(), role: 'command', socketDir: null, acquiredAt: new Date().toISOString(), token: randomBytes(16).toString('hex') });
  if (!(await createExclusive(takeover, me))) {
    const other = await readLockFile(takeover);
    // Someone else is taking over; wait for it. A takeover lock left by a killed process is removed.
    if (other.kind === 'owned' && livenessOf(other.owner) === 'dead') await fsp.rm(takeover, { force: true });
    else await sleep(TAKEOVER_WAIT_MS);
    return;
  }
  try {
    // Read again under the takeover lock: the stale owner may have been replaced by a live one meanwhile.
    const state = await readLockFile(lockFile);
    if (state.kind === 'owned' && livenessOf(state.owner) === 'dead') await fsp.rm(lockFile, { force: true });
  } finally {
    await fsp.rm(takeover, { force: true });
  }
}

export class DataDirLock {
  #owner: DataDirOwner;
  #released = false;
  readonly #onExit = () => this.#removeSync();

  constructor(
    readonly directory: string,
    owner: DataDirOwner,
  ) {
    this.#owner = owner;
    // A process that exits without closing (process.exit, an uncaught error) still leaves no lock.
    process.once('exit', this.#onExit);
  }

  get owner(): DataDirOwner {
    return this.#owner;
  }

  /** Records where the owner's socket listens, so CLI commands can find it. */
  async setSocketDir(socketDir: string | null): Promise<void> {
    const owner = { ...this.#owner, socketDir };
    const file = lockPathOf(this.directory);
    const scratch = `${file}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
    await fsp.writeFile(scratch, JSON.stringify(owner), { mode: 0o600 });
    await fsp.rename(scratch, file);
    this.#owner = owner;
  }

  async release(): Promise<void> {
    if (this.#released) return;
    this.#released = true;
    process.removeListener('exit', this.#onExit);
    const state = await readLockFile(lockPathOf(this.directory));
    if (state.kind === 'owned' && state.owner.token === this.#owner.token) await fsp.rm(lockPathOf(this.directory), { force: true });
  }

  #removeSync(): void {
    if (this.#released) return;
    this.#released = true;
    try {
      const owner = parseOwner(fs.readFileSync(lockPathOf(this.directory), 'utf8'));
      if (owner?.token === this.#owner.token) fs.rmSync(lockPathOf(this.directory), { force: true });
    } catch {
      // Exiting anyway; a lock left behind is taken over as stale by the next owner.
    }
  }
}

/**
 * Makes this process the owner of an embedded database directory.
 * @throws DataDirInUseError when a live process (or one on another host) owns it.
 */
export async function acquireDataDirLock(directory: string, role: OwnerRole): Promise<DataDirLock> {
  const lockFile = lockPathOf(directory);
  const owner: DataDirOwner = { ...currentProcessIdentity(), role, socketDir: null, acquiredAt: new Date().toISOString(), token: randomBytes(16).toString('hex') };
  for (let attempt = 0; attempt < TAKEOVER_ATTEMPTS; attempt++) {
    if (await createExclusive(lockFile, JSON.stringify(owner))) return new DataDirLock(directory, owner);
    const state = await readLockFile(lockFile);
    if (state.kind === 'absent') continue; // released in between
    if (state.kind === 'unreadable') throw new DataDirInUseError(directory, null, 'unknown');
    const liveness = livenessOf(state.owner);
    if (liveness !== 'dead') throw new DataDirInUseError(directory, state.owner, liveness);
    await removeStaleLock(lockFile);
  }
  throw new Error(`could not take over the stale lock ${lockFile}: other processes keep taking it over`);
}
