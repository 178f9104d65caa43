/**
 * The cleanup job's upload sweep on a real database (PGlite, and PostgreSQL when configured): bytes are
 * deleted before rows, a storage delete that fails keeps its row for the next run, a missing object is fine.
 * The storage is the real local directory, wrapped to fail deletes of chosen keys.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { after, before, it } from 'node:test';
import { describeOnEachDatabase } from '../../../test/helpers/database.js';
import { ACME, loadStandardFixture, USERS } from '../../../test/helpers/fixtures.js';
import { LocalDirectoryStorage, type ObjectStorage } from '../../storage/object-storage/index.js';
import { ManualClock } from '../time/clock.js';
import { cleanupJob, UploadCleanupError } from './cleanup.js';
import { uploadObjectKey } from './object-keys.js';
import { insertUpload } from './upload.repository.js';

/** The real local storage whose deletes fail for the keys in `failing`, recording the order of calls. */
class FlakyStorage extends LocalDirectoryStorage {
  readonly failing = new Set<string>();
  readonly deleted: string[] = [];
  override async delete(key: string): Promise<void> {
    if (this.failing.has(key)) throw new Error(`storage refused to delete ${key}`);
    await super.delete(key);
    this.deleted.push(key);
  }
}

describeOnEachDatabase('cleanup job: expired uploads', (getDb) => {
  let dir: string;
  let storage: FlakyStorage;
  let userId: string;
  const clock = new ManualClock(Date.UTC(2030, 0, 1));
  const context = { signal: new AbortController().signal, job: { id: 1, kind: 'cleanup', payload: {}, attempts: 1, max_attempts: 1 } };

  before(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'certdesk-objects-'));
    storage = new FlakyStorage(dir);
    await loadStandardFixture(getDb(), storage as ObjectStorage);
    userId = (await getDb().db.selectFrom('users').select('id').where('email', '=', USERS.loner.email).executeTakeFirstOrThrow()).id;
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  /** An upload announced now, with its bytes stored (or not). */
  async function upload(withBytes: boolean): Promise<{ id: string; key: string }> {
    const id = randomUUID();
    const key = uploadObjectKey(ACME.id, id);
    const now = clock.now();
    await insertUpload(getDb().db, {
      upload_id: id, organization_id: ACME.id, user_id: userId, object_key: key, file_name: 'a.png', content_type: 'image/png',
      size: 3, created_at: now, expires_at: new Date(now.getTime() + 3_600_000),
    });
    if (withBytes) await storage.put(key, Buffer.from('abc'), 'image/png');
    return { id, key };
  }
  const rowExists = async (id: string) => (await getDb().db.selectFrom('uploads').select('upload_id').where('upload_id', '=', id).executeTakeFirst()) !== undefined;

  it('deletes bytes then rows; a failed delete keeps its row, and the next run finishes the job', async () => {
    const job = cleanupJob({ db: getDb().db, clock, storage, batchSize: 2 });
    const fresh = await upload(true);
    const stale = [await upload(true), await upload(true), await upload(false), await upload(true), await upload(true)];
    clock.advance(3 * 3_600_000); // expired two hours ago: past the one-hour grace
    const later = await upload(true); // announced after the jump: not expired
    const stuck = stale[1]!;
    storage.failing.add(stuck.key);

    await assert.rejects(job.run({}, context), (err: unknown) => err instanceof UploadCleanupError && err.failedKeys.join() === stuck.key);
    for (const u of stale.filter((s) => s !== stuck)) {
      assert.equal(await rowExists(u.id), false, 'row deleted');
      assert.equal(await storage.exists(u.key), false, 'bytes deleted');
    }
    assert.equal(await rowExists(stuck.id), true, 'the row of bytes that could not be deleted stays');
    assert.equal(await storage.exists(stuck.key), true);
    for (const u of [fresh, later]) assert.equal(await rowExists(u.id), u === later, 'unexpired uploads are kept');
    assert.equal(await storage.exists(later.key), true);
    // A missing object (stale[2] never had bytes) counts as deleted.
    assert.ok(storage.deleted.includes(stale[2]!.key));

    storage.failing.clear();
    await job.run({}, context);
    assert.equal(await rowExists(stuck.id), false);
    assert.equal(await storage.exists(stuck.key), false);
    // Running again with nothing to do is fine.
    await job.run({}, context);
    assert.equal(await rowExists(later.id), true);
  });

  it('an upload an order used is never touched, even long after it expired', async () => {
    const job = cleanupJob({ db: getDb().db, clock, storage });
    const used = await upload(true);
    await getDb().db.updateTable('uploads').set({ used_at: clock.now(), used_by_order: 'acme-0001' }).where('upload_id', '=', used.id).execute();
    clock.advance(48 * 3_600_000);
    await job.run({}, context);
    assert.equal(await rowExists(used.id), true);
    assert.equal(await storage.exists(used.key), true);
  });
});
