import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { acquireDataDirLock, DataDirInUseError, liveOwnerOf, lockPathOf } from './data-dir-lock.js';
import { currentProcessIdentity } from './process-identity.js';

/** The pid of a process that has already exited. */
function deadPid(): number {
  const run = spawnSync(process.execPath, ['-e', '0']);
  assert.ok(run.pid);
  return run.pid;
}

function writeLock(directory: string, record: Record<string, unknown>): void {
  const me = currentProcessIdentity();
  writeFileSync(lockPathOf(directory), JSON.stringify({ ...me, role: 'serve', socketDir: null, acquiredAt: '', token: 'stale', ...record }));
}

describe('data directory lock', () => {
  let root: string;
  let n = 0;
  const fresh = () => path.join(root, `db${n++}`);

  before(() => {
    root = mkdtempSync(path.join(os.tmpdir(), 'certdesk-lock-'));
  });
  after(() => rmSync(root, { recursive: true, force: true }));

  it('has one owner at a time, also within one process, and is free again after release', async () => {
    const dir = fresh();
    const lock = await acquireDataDirLock(dir, 'serve');
    const refused = await acquireDataDirLock(dir, 'command').catch((err: unknown) => err);
    assert.ok(refused instanceof DataDirInUseError);
    assert.equal(refused.owner?.pid, process.pid);
    assert.equal(refused.owner?.role, 'serve');
    assert.equal(refused.liveness, 'alive');
    assert.equal((await liveOwnerOf(dir))?.token, lock.owner.token);
    await lock.setSocketDir('/run/x');
    assert.equal(JSON.parse(readFileSync(lockPathOf(dir), 'utf8')).socketDir, '/run/x');
    await lock.release();
    assert.equal(existsSync(lockPathOf(dir)), false);
    const again = await acquireDataDirLock(dir, 'command');
    await again.release();
  });

  it('takes over the lock of a dead process, and of a pid now used by a later process', async () => {
    const dir = fresh();
    writeLock(dir, { pid: deadPid() });
    const lock = await acquireDataDirLock(dir, 'serve');
    assert.equal(lock.owner.pid, process.pid);
    await lock.release();

    // Our own pid, but a start time that is not ours: the lock's process is gone and the pid reused.
    writeLock(dir, { startTime: '1' });
    const reused = await acquireDataDirLock(dir, 'serve');
    await reused.release();
  });

  it('lets exactly one of many simultaneous takeovers of a stale lock win', async (t) => {
    // Random pauses in every file operation shuffle how the contenders interleave (a real race needs one
    // contender's remove-and-create to fall between another's read and remove).
    const jitter = () => new Promise((resolve) => setTimeout(resolve, Math.floor(Math.random() * 4)));
    for (const name of ['readFile', 'rm', 'link', 'writeFile'] as const) {
      const real = fsp[name] as (...args: unknown[]) => Promise<unknown>;
      t.mock.method(fsp, name, async (...args: unknown[]) => {
        await jitter();
        return real(...args);
      });
    }
    for (let round = 0; round < 20; round++) {
      const dir = fresh();
      writeLock(dir, { pid: deadPid() });
      const results = await Promise.allSettled(Array.from({ length: 8 }, () => acquireDataDirLock(dir, 'command')));
      const won = results.filter((r) => r.status === 'fulfilled');
      assert.equal(won.length, 1, `round ${round}: ${won.length} winners`);
      const winner = (won[0] as PromiseFulfilledResult<Awaited<ReturnType<typeof acquireDataDirLock>>>).value;
      for (const r of results) {
        if (r.status === 'rejected') {
          assert.ok(r.reason instanceof DataDirInUseError, String(r.reason));
          assert.equal(r.reason.owner?.token, winner.owner.token, 'refused in favour of the winner');
        }
      }
      assert.equal(existsSync(`${lockPathOf(dir)}.takeover`), false);
      await winner.release();
    }
  });

  it('never takes over a lock it cannot judge: another host, or an unreadable file', async () => {
    const dir = fresh();
    writeLock(dir, { hostname: 'elsewhere.example', pid: deadPid() });
    const other = await acquireDataDirLock(dir, 'serve').catch((err: unknown) => err);
    assert.ok(other instanceof DataDirInUseError);
    assert.equal(other.liveness, 'unknown');
    assert.match(other.message, /on host elsewhere\.example/);

    writeFileSync(lockPathOf(dir), 'not json');
    const unreadable = await acquireDataDirLock(dir, 'serve').catch((err: unknown) => err);
    assert.ok(unreadable instanceof DataDirInUseError);
    assert.equal(unreadable.owner, null);
    assert.match(unreadable.message, /cannot be read; remove it if no certdesk process uses the directory/);
  });

  it('release leaves a lock that is not its own alone', async () => {
    const dir = fresh();
    const lock = await acquireDataDirLock(dir, 'serve');
    writeLock(dir, { token: 'someone-else' });
    await lock.release();
    assert.equal(JSON.parse(readFileSync(lockPathOf(dir), 'utf8')).token, 'someone-else');
  });
});
